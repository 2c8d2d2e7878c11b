// The mail lab connector: the order sheet, as a CSV attachment, mailed to the lab's address
// through the service's mailer (SMTP_URL), in the photographer's name (Reply-To).
import type { LabConnector, LabOrder, OrderSheet } from './connector.js';

/** The service's mailer as this connector uses it (src/mail/mailer.ts; named here so that shop/ imports nothing of mail/). */
export interface LabMailer {
  send(message: { to: string; subject: string; text: string; html: string; replyTo?: string; attachments?: Array<{ filename: string; content: string; contentType: string }> }, what: string, url: string): void;
}

const oneLine = (s: string) => s.replace(/[\x00-\x1f\x7f]+/g, ' ').trim().slice(0, 200);

export class MailLab implements LabConnector {
  readonly name = 'mail';

  constructor(
    private readonly mailer: LabMailer,
    /** The lab's address, as the photographer set it. */
    private readonly to: string,
  ) {}

  async send(order: LabOrder, sheet: OrderSheet): Promise<void> {
    const short = order.uuid.slice(0, 8).toUpperCase();
    const site = oneLine(order.siteTitle);
    const lines = [`A print order from ${site}: order ${short}, ${order.prints} print${order.prints === 1 ? '' : 's'} on ${sheet.rows} line${sheet.rows === 1 ? '' : 's'}.`, '', `The order sheet is attached (${sheet.fileName}): one row per print, with the shipping address and a link to the file at print size.`];
    if (order.replyTo) lines.push('', `Questions about this order: reply to this mail (${order.replyTo}).`);
    this.mailer.send(
      {
        to: this.to,
        subject: `Print order ${short} from ${site}`,
        text: [...lines, ''].join('\n'),
        html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Print order ${short}</title></head><body>${lines.map((l) => (l === '' ? '' : `<p>${l.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`)).join('')}</body></html>`,
        ...(order.replyTo ? { replyTo: order.replyTo } : {}),
        attachments: [{ filename: sheet.fileName, content: sheet.csv, contentType: 'text/csv; charset=utf-8' }],
      },
      'lab order sheet mail',
      '',
    );
  }
}
