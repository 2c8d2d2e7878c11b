// Return addresses of the sign-in pages at a website's own hostname: there,
// `/sites/<urlname>/…` is another website seen through this host, so a
// sign-in link must never lead there (found by test/site/fuzz-visitor.test.ts).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachDatabase } from '../support/service.js';
import { startWorld, worldOn, type World } from '../support/world.js';
import { visit } from './site-support.js';

eachDatabase((kind) => {
  describe('sign-in return addresses at a hostname', () => {
    let w: World;
    let host: string;
    let other: string;
    beforeAll(async () => {
      w = await startWorld(kind, { VISITOR_RATE_LIMIT: 'off' });
      host = `back-${randomBytes(3).toString('hex')}.example.test`;
      await w.svc.core.websites.create(w.user, { urlname: `bk-${randomBytes(3).toString('hex')}`, title: 'Back', hostname: host });
      other = (await worldOn(w.svc)).urlname;
    });
    afterAll(() => w?.svc.close());

    it("refuses another website's prefix as the return address of the form and of the link asked for", async () => {
      for (const back of [`/sites/${other}/`, `/sites/${other}/-/theirs`, `/SITES/${other}/`, '/sites/']) {
        const form = await visit(w.svc, `/_signin?back=${encodeURIComponent(back)}`, { host });
        expect([back, form.status]).toEqual([back, 422]);
        expect(form.body).not.toContain(`value="${back}"`);
        const asked = await visit(w.svc, '/_signin', { host, form: { email: 'client@example.com', back } });
        expect([back, asked.status]).toEqual([back, 422]);
      }
      // The website's own paths still go through.
      expect((await visit(w.svc, `/_signin?back=${encodeURIComponent('/-/clients')}`, { host })).status).toBe(200);
      expect((await visit(w.svc, '/_signin', { host, form: { email: 'client@example.com', back: '/-/clients?page=2' } })).status).toBe(200);
    });
  });
});
