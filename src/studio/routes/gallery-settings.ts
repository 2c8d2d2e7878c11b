// A gallery's own settings: its attributes, password, access list and client invitations
// (docs/studio.md "Galleries"). Each form is read by the gallery's spec (GALLERY_FIELDS, the
// access list by acl.ts) under the form's names; a refusal is shown at the field it names.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { readFields, type Entry } from '../../core/fields.js';
import { DEFAULT_ACL_EMAIL, type AclEntryInput } from '../../galleries/acl.js';
import { GALLERY_ACL_FIELDS, readGallery } from '../../galleries/fields.js';
import type { GalleryDetails } from '../../galleries/service.js';
import { listNamesOf } from '../../lightboxes/lists.js';
import { homeUrl } from '../../websites/home-url.js';
import type { Body } from '../body.js';
import type { SaleView } from '../pages/gallery-sale.js';
import { saleView, saveSale } from './gallery-sale.js';
import { SMALL_FORM_BYTES, type InvitationDelivery, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import type { Source } from '../../core/fields.js';
import { settingsPage, type AclRow, type DeliveryForm, type NoticeAt, type SettingsForm } from '../pages/galleries.js';
import { GALLERY_FORM, located, noticeOf, uuidOf } from './galleries.js';

/** Medias offered as a cover: the gallery's first ones in its order. */
const COVER_CHOICES = 48;
const DISPLAY_STYLES_SHOWN = 100;
/** Price lists the "Sell these photos" card offers (a photographer keeps a handful). */
const PRICE_LISTS_SHOWN = 200;
/** An access list form: the entries it may hold (acl.ts's bound is 1000; a form of 1000 rows is still small). */
const ACL_FORM_BYTES = 256 * 1024;

const ONE_LINE = /[\r\n]/g;
/** How the access list's refusals name it. */
const ACL_WORDS = 'access list';

/** The fields of the settings form. */
const SETTINGS_KEYS = ['name', 'description', 'displayStyle', 'coverMedia', 'contentOrder', 'contentOrderDirection', 'indexing'] as const;

export const gallerySettingRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/galleries/:uuid', handler: settingsScreen },
  { method: 'POST', path: '/studio/galleries/:uuid', bodyLimit: SMALL_FORM_BYTES * 8, handler: saveSettings },
  { method: 'POST', path: '/studio/galleries/:uuid/password', bodyLimit: SMALL_FORM_BYTES, handler: setPassword },
  { method: 'POST', path: '/studio/galleries/:uuid/expiry', bodyLimit: SMALL_FORM_BYTES, handler: setExpiry },
  { method: 'POST', path: '/studio/galleries/:uuid/favourites', bodyLimit: SMALL_FORM_BYTES, handler: setFavourites },
  { method: 'POST', path: '/studio/galleries/:uuid/extend', bodyLimit: SMALL_FORM_BYTES, handler: extendExpiry },
  { method: 'POST', path: '/studio/galleries/:uuid/downloads', bodyLimit: SMALL_FORM_BYTES, handler: setDownloads },
  { method: 'POST', path: '/studio/galleries/:uuid/acl', bodyLimit: ACL_FORM_BYTES, handler: setAccessList },
  { method: 'POST', path: '/studio/galleries/:uuid/invite', bodyLimit: SMALL_FORM_BYTES, handler: invite },
  // "Send again" of a failed invitation (a small form of its own beside the access list).
  { method: 'POST', path: '/studio/galleries/:uuid/resend', bodyLimit: SMALL_FORM_BYTES, handler: resend },
  { method: 'POST', path: '/studio/galleries/:uuid/sale', bodyLimit: SMALL_FORM_BYTES, handler: setSale },
];

/** The studio's "Extend" button: the expiry moved this many days on. */
const EXTEND_DAYS = 30;

const AT: Record<string, NoticeAt> = { favourites: 'favourites', expiry: 'expiry', extended: 'expiry', downloads: 'downloads', password: 'password', 'password-removed': 'password', acl: 'access', invited: 'invite', 'invite-unavailable': 'invite' };
const noticeAtOf = (req: FastifyRequest) => AT[(req.query as { done?: string }).done ?? ''];

// ---- settings
async function settingsOf(
  ctx: StudioContext,
  s: Signed,
  urlname: string,
  d: GalleryDetails,
  form?: SettingsForm,
  error?: { field: string; message: string },
  notice?: string,
  noticeAt?: NoticeAt,
  inviteLink?: { email: string; link: string },
  delivery?: DeliveryForm,
  sale?: Pick<SaleView, 'draft' | 'error' | 'notice'>,
) {
  const site = await ctx.websiteDetails(s, urlname);
  const styles = await ctx.deps.websites.displayStyles(s.user, urlname, { limit: DISPLAY_STYLES_SHOWN, offset: 0 });
  const lists = await ctx.deps.pricingProfiles.list(s.user, PRICE_LISTS_SHOWN, 0);
  const home = homeUrl(ctx.deps.config.publicUrl, site.website);
  const r = d.record;
  const values: SettingsForm = form ?? {
    name: r.name,
    description: r.description ?? '',
    displayStyle: r.display_style_uuid ?? '',
    coverMedia: r.cover_media_uuid ?? '',
    contentOrder: r.content_order,
    contentOrderDirection: r.content_order_direction,
    hidden: r.hidden === 1,
    indexing: String(r.indexing),
  };
  // The expiry as a datetime-local shows it, in UTC (the form says so).
  const expiresAt = form?.expiresAt ?? (r.expires_at === null ? '' : r.expires_at.slice(0, 16));
  const shownDelivery = delivery ?? form?.delivery ?? { downloadPin: r.download_pin ?? '', downloadLimit: r.download_limit === null ? '' : String(r.download_limit), downloadSize: r.download_size ?? 'original' };
  const fav = { favourites: form?.favourites ?? r.favourites ?? 'default', favouriteLists: form?.favouriteLists ?? listNamesOf(r.favourite_lists).join('\n'), pickLimit: form?.pickLimit ?? (r.pick_limit === null ? '' : String(r.pick_limit)) };
  const deliveries = (await ctx.deps.invitationDeliveries?.(s.user, r.uuid)) ?? new Map<string, InvitationDelivery>();
  const acl: AclRow[] = d.acl.map((e) => ({ position: e.position, email: e.email, read: e.read, comp: e.compDownload, hires: e.hiresDownload, delivery: deliveries.get(e.email) }));
  return settingsPage({
    // Only the gallery's owner sells it (the service's 404 for a member of a shared website): no card then.
    sale: await saleView(ctx, s, d.record.uuid, sale).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }),
    viewer: s.viewer,
    priceLists: lists.profiles.map((l) => ({ uuid: l.uuid, label: `${l.name} (${l.kind === 'print' ? 'prints' : 'downloads'}, ${l.currency})` })),
    urlname,
    siteTitle: site.website.title || urlname,
    uuid: r.uuid,
    isRoot: r.parent_uuid === null,
    publicUrl: r.full_url_path === '' ? home : `${home}/-/${r.full_url_path}`,
    values: { ...values, expiresAt, delivery: shownDelivery, ...fav },
    styles: styles.styles.map((x) => ({ uuid: x.uuid, name: x.name, isDefault: x.is_default === 1 })),
    covers: (d.medias ?? []).slice(0, COVER_CHOICES),
    mediasCount: d.counts.medias,
    locked: r.password_hash !== null,
    acl,
    invitations: ctx.deps.invite !== undefined,
    inviteLink,
    error,
    notice,
    noticeAt,
  });
}

async function settingsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const done = (req.query as { done?: string }).done;
  const sale = done === 'sale' ? { notice: 'The gallery is for sale whole.' } : done === 'sale-stopped' ? { notice: 'The gallery is no longer sold whole.' } : undefined;
  return ctx.send(reply, 200, await settingsOf(ctx, s, urlname, d, undefined, undefined, sale ? undefined : noticeOf(req), noticeAtOf(req), undefined, undefined, sale));
}

// ---- the whole-gallery sale (routes/gallery-sale.ts)
async function setSale(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const r = await saveSale(ctx, s, d.record.uuid, form);
  if (r.error) {
    const draft = { choice: (form.str('sale_item') ?? '').slice(0, 100), price: (form.str('sale_price') ?? '').slice(0, 30) };
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, undefined, undefined, undefined, undefined, undefined, { draft, error: r.error }));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=${r.stopped ? 'sale-stopped' : 'sale'}#whole-sale`);
}

async function saveSettings(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  // Every field of the form is sent, blank when left out; the checkbox sends nothing unticked.
  const source = GALLERY_FORM.source(form, SETTINGS_KEYS, { blank: true });
  const hidden = form.str('hidden') === '1' ? '1' : '0';
  try {
    await ctx.deps.galleries.update(s.user, urlname, d.record.uuid, readGallery({ ...source, value: (k) => (k === 'hidden' ? hidden : source.value(k)) }, 'update', GALLERY_FORM.words));
  } catch (err) {
    // The form again as it was sent, by the same spec keys.
    const values = { ...Object.fromEntries(SETTINGS_KEYS.map((k) => [k, source.value(k) ?? ''])), hidden: hidden === '1' } as SettingsForm;
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, values, GALLERY_FORM.refusal(err)));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=saved`);
}

async function setPassword(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const remove = form.str('remove') === '1';
  const password = form.str('password') ?? '';
  if (!remove && password === '') return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { field: 'password', message: 'Type the password visitors will be asked for.' }));
  try {
    await ctx.deps.galleries.update(s.user, urlname, d.record.uuid, readGallery((k) => (k === 'password' ? (remove ? '' : password) : undefined), 'update', GALLERY_FORM.words));
  } catch (err) {
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { ...GALLERY_FORM.refusal(err), field: 'password' }));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=${remove ? 'password-removed' : 'password'}#password`);
}

/**
 * A settings card that saves some of the gallery spec's fields: a refusal draws the page again at
 * that card, with what the card echoes of the form; a save goes back to the card.
 */
async function saveCard(
  ctx: StudioContext,
  req: FastifyRequest,
  reply: FastifyReply,
  card: { keys: readonly string[]; at: NoticeAt; anchor: string; echo?: (sent: Source, d: GalleryDetails) => { form?: SettingsForm; delivery?: DeliveryForm } },
) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const source = GALLERY_FORM.source(form, card.keys, { blank: true });
  try {
    await ctx.deps.galleries.update(s.user, urlname, d.record.uuid, readGallery(source, 'update', GALLERY_FORM.words));
  } catch (err) {
    const sent = card.echo?.(source, d) ?? {};
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, sent.form, GALLERY_FORM.refusal(err), undefined, card.at, undefined, sent.delivery));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=${card.at}#${card.anchor}`);
}

// ---- the expiry: set or cleared by the gallery spec's field, or moved 30 days on in one click
function setExpiry(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  return saveCard(ctx, req, reply, { keys: ['expiresAt'], at: 'expiry', anchor: 'expiry' });
}

// ---- downloads: the spec's download_pin, download_limit and download_size
function setDownloads(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  return saveCard(ctx, req, reply, {
    keys: ['downloadPin', 'downloadLimit', 'downloadSize'],
    at: 'downloads',
    anchor: 'downloads',
    echo: (sent) => ({ delivery: { downloadPin: sent.value('downloadPin') ?? '', downloadLimit: sent.value('downloadLimit') ?? '', downloadSize: sent.value('downloadSize') ?? 'original' } }),
  });
}

// ---- favourites: on, off or default, the named lists and the pick limit, by the gallery spec's fields
function setFavourites(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  return saveCard(ctx, req, reply, {
    keys: ['favourites', 'favouriteLists', 'pickLimit'],
    at: 'favourites',
    anchor: 'favourites-card',
    echo: (sent, d) => ({ form: { ...plainValues(d), favourites: sent.value('favourites') ?? '', favouriteLists: sent.value('favouriteLists') ?? '', pickLimit: sent.value('pickLimit') ?? '' } }),
  });
}

/** The settings form's values as stored (a refusal elsewhere echoes only its own fields). */
function plainValues(d: GalleryDetails): SettingsForm {
  const r = d.record;
  return {
    name: r.name,
    description: r.description ?? '',
    displayStyle: r.display_style_uuid ?? '',
    coverMedia: r.cover_media_uuid ?? '',
    contentOrder: r.content_order,
    contentOrderDirection: r.content_order_direction,
    hidden: r.hidden === 1,
    indexing: String(r.indexing),
  };
}

async function extendExpiry(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  await ctx.deps.galleries.extendExpiry(s.user, urlname, d.record.uuid, EXTEND_DAYS);
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=extended#expiry`);
}

// ---- the access list: DEFAULT first, then the clients; the whole list is replaced (GalleriesService.setAcl, read by acl.ts)
async function setAccessList(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const entries = formEntries(form);
  try {
    await ctx.deps.galleries.setAcl(s.user, urlname, d.record.uuid, readAccessList(entries));
  } catch (err) {
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { field: 'acl', message: aclMessage(err, entries) }));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=acl#access`);
}

/** The access list by the gallery spec's access-list field (acl.ts: its bound, its checks). */
function readAccessList(list: Entry[]): AclEntryInput[] {
  return readFields(GALLERY_ACL_FIELDS, { value: () => undefined, entries: () => list }, () => ACL_WORDS, 'create').acl ?? [];
}

/** A refusal of the list for people: an entry is "entry 2 (email)", by the names the list was read with. */
function aclMessage(err: unknown, list: Entry[]): string {
  const { message } = GALLERY_FORM.refusal(err);
  return list.reduce((m, e) => ['email', 'read', 'comp_download', 'hires_download'].reduce((t, sub) => t.split(`${ACL_WORDS}[${e.id}][${sub}]`).join(`entry ${e.id} (${sub})`), m), message);
}

/**
 * The access list form's rows as the list's entries: DEFAULT is entry 0, each client row keeps
 * its number, the new row takes the next free one; a row ticked "remove" is left out.
 */
function formEntries(form: Body): Entry[] {
  const entry = (id: string, row: string, email: string): Entry => ({ id, value: (sub) => (sub === 'email' ? email : form.str(`${row}_${sub}`) === '1' ? '1' : '0') });
  // How many entries a list may hold is the service's rule (acl.ts); the body's bound keeps the form small.
  const rows = form.list('entry').filter((row) => /^\d{1,9}$/.test(row));
  const out = [entry('0', 'default', DEFAULT_ACL_EMAIL)];
  for (const row of rows) if (row !== '0' && form.str(`${row}_remove`) !== '1') out.push(entry(row, row, (form.str(`${row}_email`) ?? '').replace(ONE_LINE, '')));
  const added = (form.str('new_email') ?? '').trim();
  if (added !== '') out.push(entry(String(Math.max(0, ...rows.map(Number)) + 1), 'new', added));
  return out;
}

// ---- invite a client: an entry on the access list, then the mail (the lead's InvitationsService, through deps.invite)
async function invite(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const email = (form.str('email') ?? '').trim();
  const message = (form.str('message') ?? '').slice(0, 2000);
  const comp = form.str('comp_download') === '1';
  const hires = form.str('hires_download') === '1';
  try {
    if (email === '') throw new ApiError('invalid_parameter', 'Type the address of the client to invite.');
    // The client joins the list, or their entry gets these rights: the service's rule, under its lock.
    await ctx.deps.galleries.grant(s.user, urlname, d.record.uuid, { email, compDownload: comp, hiresDownload: hires });
  } catch (err) {
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { ...GALLERY_FORM.refusal(err), field: 'invite_email' }));
  }
  return mailInvitation(ctx, req, reply, s, urlname, d, { email: email.toLowerCase(), message, comp, hires });
}

// ---- "Send again": a failed invitation to a client already on the list (their rights as they are)
async function resend(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const email = (form.str('resend') ?? '').trim().toLowerCase();
  const entry = d.acl.find((e) => e.position !== 0 && e.email === email);
  if (!entry) return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}#access`);
  return mailInvitation(ctx, req, reply, s, urlname, d, { email, message: '', comp: entry.compDownload, hires: entry.hiresDownload });
}

/** The mail of an invitation (the InvitationsService), then the answer: a redirect, a refusal at the invitation's field, or the link to hand over. */
async function mailInvitation(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, s: Signed, urlname: string, d: GalleryDetails, r: { email: string; message: string; comp: boolean; hires: boolean }) {
  const email = r.email;
  // INTEGRATION POINT (lead): StudioDeps.invite mails the sign-in link (the InvitationsService).
  if (!ctx.deps.invite) return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=invite-unavailable#invite`);
  let sent: Awaited<ReturnType<NonNullable<typeof ctx.deps.invite>>>;
  try {
    sent = await ctx.deps.invite(s.user, d.record.uuid, r);
  } catch (err) {
    // The service's refusals of the mail (an operator stopped it, a count is spent) at the invitation's field: nothing was sent.
    if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 429)) throw err;
    if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
    return ctx.send(reply, err.status, await settingsOf(ctx, s, urlname, (await located(ctx, s, uuidOf(req))).d, undefined, { field: 'invite_email', message: `${err.message[0].toUpperCase()}${err.message.slice(1)}.` }));
  }
  if (sent.mailed) return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=invited#invite`);
  // No mail server: this answer (not a redirect: the link is the client's secret, kept out of addresses) shows the link to hand over.
  const { d: now } = await located(ctx, s, d.record.uuid);
  const page = await settingsOf(ctx, s, urlname, now, undefined, undefined, `${email.toLowerCase()} was added to the access list.`, 'invite', { email: email.toLowerCase(), link: sent.link });
  reply.header('cache-control', 'no-store');
  return ctx.send(reply, 200, page);
}


