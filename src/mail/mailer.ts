// Sends visitors' mail: through SMTP_URL with nodemailer, or, with no SMTP_URL,
// writes the sign-in link to the log (the operator hands it over, or uses
// `admin client link`). Sending runs after the visitor has had their answer:
// a slow or failing mail server neither delays nor changes it (failures are
// logged).
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import type { VisitorSettings } from '../config.js';
import { invitationMessage, selectionMessage, signInMessage, type InvitationMailContent, type MailMessage, type SelectionMail, type SignInMail } from './messages.js';

/** What became of one mail: accepted by the SMTP server (when), refused or lost (a short code), or not mailed (no SMTP_URL). */
export type MailOutcome = { state: 'sent'; at: Date } | { state: 'failed'; code: string } | { state: 'not_mailed' };

/** A failure's short code: the SMTP reply's number, else nodemailer's code (EAUTH, ECONNECTION...); never the server's words. */
export function failureCode(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown };
  if (typeof e.responseCode === 'number') return String(e.responseCode);
  if (typeof e.code === 'string' && /^[A-Z0-9_]{1,32}$/.test(e.code)) return e.code;
  return 'ERROR';
}

export interface Mailer {
  /** False without SMTP_URL: what would be mailed goes to the log (a caller may show the link to the one who asked instead). */
  readonly mails: boolean;
  /** Starts sending; never throws (failures are logged). */
  sendSignIn(mail: SignInMail): void;
  /**
   * A photographer's invitation (docs/delivery.md); the same: never throws. The promise (which
   * never rejects) settles with the outcome, for the delivery state; nobody need wait for it.
   */
  sendInvitation(mail: InvitationMailContent): Promise<MailOutcome>;
  /** Tells a photographer a client sent their selection (docs/delivery.md); never throws. */
  sendSelection(mail: SelectionMail): void;
  /**
   * Starts sending another message of the service (the studio's invitation of a new
   * photographer); never throws. Without SMTP_URL, `what` and `url` go to the log.
   */
  send(message: MailMessage, what: string, url: string): void;
  /** Resolves once every send started has finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

// A mail server that does not answer in time is a failed send.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function createMailer(settings: VisitorSettings, log: Logger): Mailer {
  const pending = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  const idle = async () => {
    while (pending.size) await Promise.allSettled([...pending]);
  };

  if (!settings.smtpUrl) {
    return {
      mails: false,
      sendSignIn(mail) {
        // The link is the secret: only this fallback, which exists to hand it over, logs it.
        log.info({ to: mail.to, url: mail.url }, 'visitor sign-in link (no SMTP_URL set, so it is logged instead of mailed)');
      },
      sendInvitation(mail) {
        log.info({ to: mail.to, url: mail.url }, 'invitation link (no SMTP_URL set, so it is logged instead of mailed)');
        return Promise.resolve({ state: 'not_mailed' });
      },
      sendSelection(mail) {
        log.info({ to: mail.to, lightbox: mail.lightboxUuid, count: mail.count }, 'selection sent (no SMTP_URL set, so the photographer is not mailed)');
      },
      send(message, what, url) {
        log.info({ to: message.to, url }, `${what} (no SMTP_URL set, so it is logged instead of mailed)`);
      },
      idle,
      close: idle,
    };
  }

  const smtpUrl = settings.smtpUrl;
  // nodemailer (~15 MiB of memory) is loaded with the first mail.
  let transport: Promise<Transporter> | undefined;
  const transportOf = () => (transport ??= import('nodemailer').then((m) => m.createTransport({ url: smtpUrl, ...TIMEOUTS }, { from: settings.mailFrom })));
  // An SMTP URL names its own host; the password in it is never logged.
  const server = new URL(settings.smtpUrl).host;
  const send = (message: MailMessage, what: string): Promise<MailOutcome> => {
    const outcome = transportOf()
      .then((t) => t.sendMail(message))
      .then(
        (): MailOutcome => {
          log.info({ server }, `${what} sent`);
          return { state: 'sent', at: new Date() };
        },
        (err: unknown): MailOutcome => {
          const e = err as { code?: string; responseCode?: number; message?: string };
          log.error({ server, code: e.code, responseCode: e.responseCode, reason: e.message }, `${what} could not be sent`);
          return { state: 'failed', code: failureCode(err) };
        },
      );
    track(outcome.then(() => undefined));
    return outcome;
  };
  return {
    mails: true,
    sendSignIn(mail) {
      send(signInMessage(mail), 'visitor sign-in mail');
    },
    sendInvitation(mail) {
      return send(invitationMessage(mail), 'invitation mail');
    },
    sendSelection(mail) {
      send(selectionMessage(mail), 'selection mail');
    },
    send(message, what) {
      send(message, what);
    },
    idle,
    async close() {
      await idle();
      if (transport) (await transport).close();
    },
  };
}
