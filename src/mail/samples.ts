// Every mail a client or buyer receives, with sample values, in the website's brand: the studio's
// "Preview the mails" (docs/studio.md). The links lead to the website's home: nothing is made.
import { downloadsMessage, expiryReminderMessage, invitationMessage, orderReceivedMessage, signInMessage, type MailMessage } from './messages.js';
import type { MailBrand } from './shell.js';

export const SAMPLE_KINDS = ['invitation', 'sign-in', 'expiry', 'order', 'downloads'] as const;
export type SampleKind = (typeof SAMPLE_KINDS)[number];

export const SAMPLE_LABELS: Record<SampleKind, string> = {
  invitation: 'Invitation',
  'sign-in': 'Sign-in link',
  expiry: 'Expiry reminder',
  order: 'Order received',
  downloads: 'Downloads ready',
};

const WEEK_MS = 7 * 86_400_000;

/** One mail as a client would get it from this website (the time: `now`, for the dates it shows). */
export function sampleMail(kind: SampleKind, brand: MailBrand, now = new Date()): MailMessage {
  const home = brand.home ?? 'https://photos.example/';
  const link = `${home}_signin/sample`;
  const to = 'client@example.com';
  const siteTitle = brand.title;
  switch (kind) {
    case 'invitation':
      return invitationMessage({ to, siteTitle, galleryName: 'Anna & Tom — the wedding', url: link, days: 7, message: 'Dear Anna and Tom,\nyour photos are ready. Pick your favourites for the album.', brand });
    case 'sign-in':
      return signInMessage({ to, siteTitle, url: link, minutes: 30, brand });
    case 'expiry':
      return expiryReminderMessage({ to, siteTitle, galleryName: 'Anna & Tom — the wedding', url: home, expires: new Date(now.getTime() + WEEK_MS), contact: null, brand });
    case 'downloads':
      return downloadsMessage({ to, siteTitle, url: `${home}downloads/sample`, files: 3, expires: new Date(now.getTime() + 30 * 86_400_000), brand });
    case 'order':
      return orderReceivedMessage({
        to,
        siteTitle,
        uuid: '3f2a9c10-5b7e-4d21-9a0c-8e1f2b3c4d5e',
        lines: [
          { fileName: 'first-dance.jpg', label: 'Print 20×30 cm', option: 'Matte', longEdge: null, kind: 'print', quantity: 2, total: 3000 },
          { fileName: 'rings.jpg', label: 'Download', option: null, longEdge: 2400, kind: 'download', quantity: 1, total: 900 },
        ],
        totals: { currency: 'EUR', subtotal: 3900, discount: 0, coupon: null, tax: 623, taxRateBp: 1900, taxIncluded: true, taxLabel: 'VAT', total: 3900 },
        payment: 'Bank transfer to IBAN DE00 1234 5678\nReference: your order number',
        card: false,
        brand,
      });
  }
}
