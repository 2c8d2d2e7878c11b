// The reminder a week before a gallery closes (docs/website.md "Expiry"), with a real SMTP server,
// on SQLite and PostgreSQL: the sweep mails each client on the gallery's access list once, none
// to galleries closing later, already closed or without clients; a moved expiry gets its own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { startWorld, type World } from '../support/world.js';

const DAY = 86_400_000;

eachDatabase((kind) => {
  let w: World;
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    w = await startWorld(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' });
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Ann Lee', 'website[contact_email]': 'ann@example.com' });
  });
  afterAll(async () => {
    await w?.svc.close();
    await smtp?.close();
  });

  const clientGallery = async (name: string, expiresAt: string) =>
    text(
      (
        await w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, {
          'gallery[name]': name,
          'gallery[parent]': w.rootUuid,
          'gallery[expires_at]': expiresAt,
          'gallery[acl][0][email]': 'DEFAULT',
          'gallery[acl][0][read]': '0',
          'gallery[acl][1][email]': `bride-${name.toLowerCase()}@example.com`,
          'gallery[acl][1][read]': '1',
          'gallery[acl][2][email]': `groom-${name.toLowerCase()}@example.com`,
          'gallery[acl][2][read]': '1',
          'gallery[acl][3][email]': `barred-${name.toLowerCase()}@example.com`,
          'gallery[acl][3][read]': '0',
        })
      ).doc,
      'gallery/uuid',
    )!;
  const sweep = async () => {
    const r = await w.svc.service.sweep();
    await w.svc.service.visitors.mailer.idle();
    return r.reminders;
  };
  const to = () => smtp.mails.flatMap((m) => m.to).sort();

  it('reminds each client of a gallery closing within a week, once', async () => {
    const soon = await clientGallery('Soon', new Date(Date.now() + 3 * DAY).toISOString());
    await clientGallery('Later', new Date(Date.now() + 20 * DAY).toISOString());
    await clientGallery('Gone', new Date(Date.now() - DAY).toISOString());
    // A public gallery closing soon has no clients to remind.
    await w.client.createGallery(w.urlname, { name: 'Public', parent: w.rootUuid, expires_at: new Date(Date.now() + 2 * DAY).toISOString() });
    expect(await sweep()).toBe(2);
    expect(to()).toEqual(['bride-soon@example.com', 'groom-soon@example.com']);
    const mail = smtp.mails[0];
    const plain = partsOf(mail.raw).get('text/plain') ?? '';
    expect(mail.raw).toMatch(/Subject: Soon closes on \d{4}-\d\d-\d\d/);
    expect(plain).toContain(`/sites/${w.urlname}/-/soon`);
    expect(plain).toContain('ann@example.com');
    expect(partsOf(mail.raw).get('text/html')).toContain('<strong>Soon</strong>');
    // Once: the next runs send nothing more.
    expect(await sweep()).toBe(0);
    expect(smtp.mails).toHaveLength(2);

    // A moved expiry (still within the week) gets its own reminder.
    await w.client.updateGallery(w.urlname, soon, { expires_at: new Date(Date.now() + 5 * DAY).toISOString() });
    expect(await sweep()).toBe(2);
    expect(smtp.mails).toHaveLength(4);
  });
});
