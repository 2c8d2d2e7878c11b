// Every message the service mails (the transport is mailer.ts): a plain-text part and an HTML part
// in one shell (shell.tsx: the website's brand for clients and buyers), every value escaped by the
// JSX renderer, every value in a header line made one line.
import type { ComponentChildren } from 'preact';
import { accentOf, Button as ShellButton, renderMail, type MailBrand } from './shell.js';
import { formatMinor, type CurrencyCode } from '../shop/money.js';

/** A message as nodemailer takes it. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
  /** Files sent with it (a lab's order sheet). */
  attachments?: Array<{ filename: string; content: string; contentType: string }>;
}

/** A title fit for a header line: no control characters, bounded. */
function oneLine(s: string): string {
  return s.replace(/[\x00-\x1f\x7f]+/g, ' ').trim().slice(0, 200);
}

/** The message: its text's lines, and its HTML part's title, body and button in the one shell (branded when `brand` is given). */
function message(to: string, subject: string, text: string[], title: ComponentChildren, body: ComponentChildren, brand?: MailBrand): MailMessage {
  const html = renderMail({ title, brand, body });
  return { to, subject, text: [...text, ''].join('\n'), html };
}

/** A client's mail's brand: the website's, its title made one line (a sender that has none yet: the title alone). */
function brandOf(brand: MailBrand | undefined, siteTitle: string): MailBrand {
  return { ...(brand ?? { accent: null, logo: null, home: null }), title: oneLine(brand?.title ?? siteTitle) };
}

/** The mail's main link as a button in the brand's accent. */
function Button({ url, label, brand }: { url: string; label: string; brand: MailBrand }) {
  return <ShellButton button={{ href: url, label }} accent={accentOf(brand)} />;
}

/** Below a button, its address as text: a mail program that shows no button still shows the link. */
function Fallback({ url }: { url: string }) {
  return (
    <p style="font-size:13px;color:#4b5563">
      If the button does not work, copy this address into your browser:{' '}
      <a href={url} style="color:#4b5563;word-break:break-all">
        {url}
      </a>
    </p>
  );
}

export type { MailBrand } from './shell.js';

export interface SignInMail {
  to: string;
  siteTitle: string;
  /** `<home>/_signin/<token>`. */
  url: string;
  /** Minutes the link stays valid. */
  minutes: number;
  brand?: MailBrand;
}

/** A visitor's sign-in link (docs/visitors.md). */
export function signInMessage(m: SignInMail): MailMessage {
  const title = oneLine(m.siteTitle);
  const brand = brandOf(m.brand, title);
  const validity = m.minutes === 1 ? '1 minute' : `${m.minutes} minutes`;
  const works = `It works once, within ${validity}.`;
  const ignore = 'If you did not ask for it, ignore this mail: nothing happens without the link.';
  return message(
    m.to,
    `Sign in to ${title}`,
    [`To sign in to ${title}, open this link:`, '', m.url, '', works, ignore],
    <>Sign in to {title}</>,
    <>
      <p>
        To sign in to <strong>{title}</strong>, open this link:
      </p>
      <Button url={m.url} label={`Sign in to ${title}`} brand={brand} />
      <p>{works}</p>
      <p>{ignore}</p>
      <Fallback url={m.url} />
    </>,
    brand,
  );
}

export interface InvitationMailContent {
  to: string;
  siteTitle: string;
  galleryName: string;
  url: string;
  days: number;
  /** The photographer's words, plain text: each line a line of the mail, escaped in its HTML. */
  message: string | undefined;
  brand?: MailBrand;
}

/** The subject of every invitation: the service's words, never a photographer's (a subject is what a spammer would want). */
export const INVITATION_SUBJECT = 'An invitation to see photos';

/**
 * A photographer's text with its addresses written as text no mail program makes a link of:
 * `https[:]//example[.]com`, `www[.]example[.]com`, `ann@example[.]com`. Only the service's own
 * link is a link in an invitation.
 */
export function defang(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*):\/\//gi, '$1[:]//').replace(/\b(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*[a-z0-9]\b/gi, (host) => host.replace(/\./g, '[.]'));
}

/** An invitation (docs/delivery.md "Invitations"): the photographer's message, then the gallery's sign-in link. */
export function invitationMessage(m: InvitationMailContent): MailMessage {
  const title = oneLine(m.siteTitle);
  const brand = brandOf(m.brand, title);
  const gallery = oneLine(m.galleryName);
  const validity = m.days === 1 ? '1 day' : `${m.days} days`;
  const lines = m.message ? defang(m.message).split('\n') : [];
  const works = `It works once, within ${validity}; afterwards you may ask the website for a new link with this address.`;
  return message(
    m.to,
    INVITATION_SUBJECT,
    [...(lines.length ? [...lines, '', '---', ''] : []), `You are invited to see "${gallery}" on ${title}. Open this link to sign in:`, '', m.url, '', works],
    <>
      {gallery} on {title}
    </>,
    <>
      {lines.length > 0 && (
        <p>
          {lines.map((line, i) => (
            <>
              {i > 0 && <br />}
              {line}
            </>
          ))}
        </p>
      )}
      <p>
        You are invited to see <strong>{gallery}</strong> on <strong>{title}</strong>.
      </p>
      <Button url={m.url} label={`Open ${gallery}`} brand={brand} />
      <p>{works}</p>
      <Fallback url={m.url} />
    </>,
    brand,
  );
}

/** A client sent their selection: the mail to the photographer (docs/delivery.md). */
export interface SelectionMail {
  to: string;
  siteTitle: string;
  galleryName: string;
  clientName: string | null;
  clientEmail: string;
  /** false: the client typed the address, no sign-in link proved it. */
  verified: boolean;
  count: number;
  /** The lightbox's UUID: `GET /lightboxes/<uuid>.xml`, `GET /medias.xml?lightbox_id=<uuid>`. */
  lightboxUuid: string;
  /** Where the photographer reads it (the API's address of the lightbox). */
  url: string;
  /** The client's named lists with their counts (docs/delivery.md "Named lists"); none: absent or []. */
  lists?: ReadonlyArray<{ name: string; count: number }>;
}

export function selectionMessage(m: SelectionMail): MailMessage {
  const site = oneLine(m.siteTitle);
  const gallery = oneLine(m.galleryName);
  const who = oneLine(m.clientName ? `${m.clientName} <${m.clientEmail}>` : m.clientEmail) + (m.verified ? '' : ' (address not verified)');
  const photos = m.count === 1 ? '1 photo' : `${m.count} photos`;
  const reopen = 'The selection is now read-only for the client; reopen it (lightbox[state]=open) to let them change it.';
  const lists = m.lists?.length ? oneLine(`Lists: ${m.lists.map((l) => `${l.name} ${l.count}`).join(', ')}`) : undefined;
  return message(
    m.to,
    oneLine(`Selection of ${photos} from ${gallery}`),
    [`${who} sent their selection of ${photos} from the gallery ${gallery} on ${site}.`, ...(lists ? [lists] : []), '', `Lightbox ${m.lightboxUuid}:`, m.url, '', reopen],
    <>Selection from {gallery}</>,
    <>
      <p>
        <strong>{who}</strong> sent their selection of {photos} from the gallery <strong>{gallery}</strong> on {site}.
      </p>
      {lists ? <p>{lists}</p> : null}
      <p>
        Lightbox <a href={m.url}>{m.lightboxUuid}</a>
      </p>
      <p>{reopen}</p>
    </>,
  );
}

/** The studio's invitation of a new photographer (docs/studio.md, "Administration"). */
export function accountInvitationMessage(m: { to: string; url: string; days: number; service: string }): MailMessage {
  const opened = `An account of the studio at ${m.service} was opened for you.`;
  const works = `It works once, within ${m.days} days. Then sign in with this e-mail address and your password.`;
  return message(
    m.to,
    'Your studio account',
    [opened, '', 'To choose your password, open this link:', '', m.url, '', works],
    'Your studio account',
    <>
      <p>{opened}</p>
      <p>
        <a href={m.url}>Choose your password</a>
      </p>
      <p>{works}</p>
    </>,
  );
}

/** A buyer's paid order (docs/shop.md "Delivery"): one link to the page listing the files. */
export function downloadsMessage(m: { to: string; siteTitle: string; url: string; files: number; expires: Date; brand?: MailBrand }): MailMessage {
  const title = oneLine(m.siteTitle);
  const brand = brandOf(m.brand, title);
  const until = m.expires.toISOString().slice(0, 10);
  const files = m.files === 1 ? 'your file' : `your ${m.files} files`;
  return message(
    m.to,
    `Your downloads from ${title}`,
    [`Thank you for your order from ${title}. Payment received: ${files} are ready.`, '', m.url, '', `The link works until ${until} (UTC).`],
    <>Your downloads from {title}</>,
    <>
      <p>
        Thank you for your order from <strong>{title}</strong>. Payment received: {files} are ready.
      </p>
      <Button url={m.url} label="Your downloads" brand={brand} />
      <p>The link works until {until} (UTC).</p>
      <Fallback url={m.url} />
    </>,
    brand,
  );
}

/** The buyer's "shipped" mail: the prints are on their way, with the carrier's tracking link. */
export function shippedMessage(m: { to: string; siteTitle: string; uuid: string; trackingUrl: string; address: string[] }): MailMessage {
  const title = oneLine(m.siteTitle);
  const short = m.uuid.slice(0, 8).toUpperCase();
  return message(
    m.to,
    `Your prints from ${title} are on their way`,
    [`Your order ${short} from ${title} has been shipped.`, '', 'Follow the parcel:', m.trackingUrl, '', 'It goes to:', ...m.address.map(oneLine)],
    <>Your prints are on their way</>,
    <>
      <p>
        Your order {short} from <strong>{title}</strong> has been shipped.
      </p>
      <p>
        Follow the parcel: <a href={m.trackingUrl}>{m.trackingUrl}</a>
      </p>
      <p>
        It goes to:
        {m.address.map((l) => (
          <>
            <br />
            {oneLine(l)}
          </>
        ))}
      </p>
    </>,
  );
}

/** A client's reminder a week before a gallery closes (docs/website.md "Expiry"). */
export function expiryReminderMessage(m: { to: string; siteTitle: string; galleryName: string; url: string; expires: Date; contact: string | null; brand?: MailBrand }): MailMessage {
  const title = oneLine(m.siteTitle);
  const brand = brandOf(m.brand, title);
  const gallery = oneLine(m.galleryName);
  const until = `${m.expires.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const contact = m.contact ? oneLine(m.contact) : null;
  const ask = contact ? `To keep it open longer, write to ${contact}.` : 'To keep it open longer, ask the photographer.';
  return message(
    m.to,
    `${gallery} closes on ${until.slice(0, 10)}`,
    [`The gallery "${gallery}" on ${title} closes on ${until}. Download or choose your photos before then:`, '', m.url, '', ask],
    <>
      {gallery} closes soon
    </>,
    <>
      <p>
        The gallery <strong>{gallery}</strong> on {title} closes on {until}. Download or choose your photos before then:
      </p>
      <Button url={m.url} label={`Open ${gallery}`} brand={brand} />
      <p>{ask}</p>
      <Fallback url={m.url} />
    </>,
    brand,
  );
}

/** A line of a new order as its mails show it (the prices copied into the order, in minor units). */
export interface OrderMailLine {
  /** The media's file name (what the buyer's download is named after). */
  fileName: string | null;
  label: string;
  option: string | null;
  longEdge: number | null;
  kind: string;
  quantity: number;
  total: number;
}

export interface OrderMailTotals {
  currency: CurrencyCode;
  subtotal: number;
  discount: number;
  coupon: string | null;
  tax: number;
  taxRateBp: number;
  taxIncluded: boolean;
  /** The website's name of its tax ("VAT"); absent or null: "Tax". */
  taxLabel?: string | null;
  total: number;
}

export interface OrderMail {
  siteTitle: string;
  uuid: string;
  lines: OrderMailLine[];
  totals: OrderMailTotals;
}

/** An amount as a mail reads it everywhere: `52.20 EUR` (no locale to guess). */
function amount(minor: number, code: CurrencyCode): string {
  return `${formatMinor(minor, code)} ${code}`;
}

function lineText(l: OrderMailLine, code: CurrencyCode): string {
  const size = `${l.label} (${l.longEdge === null ? 'original file' : `${l.longEdge} px`})`;
  const what = l.option ? `${l.label}, ${l.option}` : l.kind === 'download' ? size : l.kind === 'gallery' ? `the whole gallery, ${size}` : l.label;
  return oneLine(`${l.fileName ?? 'photo'}: ${what} × ${l.quantity}`) + ` — ${amount(l.total, code)}`;
}

/** The order's lines and totals, one line each, as both order mails list them. */
function orderLines(m: OrderMail): string[] {
  const t = m.totals;
  const rate = `${(t.taxRateBp / 100).toString()} %`;
  return [
    ...m.lines.map((l) => lineText(l, t.currency)),
    ...(t.discount > 0 ? [`Coupon ${oneLine(t.coupon ?? '')}: −${amount(t.discount, t.currency)}`] : []),
    ...(t.tax > 0 ? [`${oneLine(t.taxLabel || 'Tax')}${t.taxIncluded ? ' included' : ''} (${rate}): ${amount(t.tax, t.currency)}`] : []),
    `Total: ${amount(t.total, t.currency)}`,
  ];
}

const short = (uuid: string) => uuid.slice(0, 8).toUpperCase();

/** Lines of text as paragraphs' lines in HTML, each escaped. */
function Lines({ lines }: { lines: string[] }) {
  return (
    <p>
      {lines.map((line, i) => (
        <>
          {i > 0 && <br />}
          {line}
        </>
      ))}
    </p>
  );
}

/**
 * The buyer's "order received" (docs/shop.md "Mails"). `payment`: how to pay a manual order (the
 * photographer's instructions, or the default words); `card`: the website also takes cards, and
 * the order does not say which way the buyer chose. No text of the buyer's is in it: anyone may
 * type anyone's address at a checkout.
 */
export function orderReceivedMessage(m: OrderMail & { to: string; payment: string; card: boolean; brand?: MailBrand }): MailMessage {
  const title = oneLine(m.siteTitle);
  const brand = brandOf(m.brand, title);
  const thanks = `Thank you for your order from ${title}: we have received it.`;
  const ref = `Order ${short(m.uuid)} (${m.uuid})`;
  const pay = m.payment.split('\n').map((l) => l.trimEnd());
  const payLead = m.card ? 'If you paid by card, you get a second mail once the payment is confirmed. If you chose to pay otherwise:' : 'How to pay:';
  const downloads = [
    ...(m.lines.some((l) => l.kind === 'download' || l.kind === 'gallery') ? ['Once the payment is received, we mail you the link to your downloads.'] : []),
    ...(m.lines.some((l) => l.kind === 'print') ? ['Your prints are made once the payment is received; we mail you when they ship.'] : []),
  ];
  return message(
    m.to,
    `Your order from ${title}`,
    [thanks, '', ref, '', ...orderLines(m), '', payLead, ...pay, ...(downloads.length ? ['', ...downloads] : [])],
    <>Your order from {title}</>,
    <>
      <p>
        Thank you for your order from <strong>{title}</strong>: we have received it.
      </p>
      <p>{ref}</p>
      <Lines lines={orderLines(m)} />
      <p>{payLead}</p>
      <Lines lines={pay} />
      {downloads.map((d) => (
        <p>{d}</p>
      ))}
    </>,
    brand,
  );
}

/**
 * The photographer's notice of a new order (docs/shop.md "Mails"): who, what, the total, and the
 * order's page in the studio. The buyer's name is the buyer's text: one line, links defanged.
 */
export function newOrderMessage(m: OrderMail & { to: string; buyerEmail: string; buyerName: string | null; url: string }): MailMessage {
  const title = oneLine(m.siteTitle);
  const who = m.buyerName ? `${defang(oneLine(m.buyerName))} <${oneLine(m.buyerEmail)}>` : oneLine(m.buyerEmail);
  const total = amount(m.totals.total, m.totals.currency);
  const placed = `${who} ordered on ${title}; the order waits for its payment.`;
  const status = 'A card payment marks it paid by itself. A payment by hand: mark it paid on this page of the studio (Shop, Orders), or with PUT /orders/<uuid>.xml and order[status]=paid; the buyer then gets their downloads.';
  return message(
    m.to,
    `New order on ${title}: ${total}`,
    [placed, '', ...orderLines(m), '', `Order ${m.uuid}:`, m.url, '', status],
    <>New order on {title}</>,
    <>
      <p>{placed}</p>
      <Lines lines={orderLines(m)} />
      <p>
        Order <a href={m.url}>{m.uuid}</a>
      </p>
      <p>{status}</p>
    </>,
  );
}

/** To a photographer: a webhook endpoint failed for days and was disabled (docs/integrations.md "Webhooks"). */
export function webhookDisabledMessage(m: { to: string; url: string; failingSince: string; studioUrl: string }): MailMessage {
  const url = oneLine(m.url);
  const since = `${m.failingSince.slice(0, 16).replace('T', ' ')} UTC`;
  return message(
    m.to,
    'A webhook endpoint was disabled',
    [`Deliveries to ${url} have failed since ${since}, so the endpoint was disabled and no more events are sent to it.`, '', 'Its delivery log says why. Fix the receiver, enable the endpoint again and replay what it missed:', '', m.studioUrl],
    <>A webhook endpoint was disabled</>,
    <>
      <p>
        Deliveries to <strong>{url}</strong> have failed since {since}, so the endpoint was disabled and no more events are sent to it.
      </p>
      <p>Its delivery log says why. Fix the receiver, enable the endpoint again and replay what it missed:</p>
      <p>
        <a href={m.studioUrl}>{m.studioUrl}</a>
      </p>
    </>,
  );
}
