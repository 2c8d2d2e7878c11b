// The studio's webhooks screens over HTTP (docs/studio.md "Webhooks"), on both databases: a form
// without the session's token changes nothing (403); another photographer's endpoint is a 404 on
// every action; user text (an address) is escaped; a refused address is named at its field.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eachDatabase } from '../support/service.js';
import { startWorld, worldOn, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let other: World;
  let mine: StudioBrowser;
  let theirs: StudioBrowser;

  beforeAll(async () => {
    w = await startWorld(kind);
    other = await worldOn(w.svc);
    mine = await new StudioBrowser(w.svc).signIn(w.user);
    theirs = await new StudioBrowser(w.svc).signIn(other.user);
  }, 60_000);
  afterAll(async () => {
    await w?.svc.close();
  });

  it('guards every form, hides other photographers’ endpoints and escapes the address', async () => {
    const page = '/studio/account/webhooks';
    const noToken = await mine.post(page, { url: 'https://example.com/a', events: '*' });
    expect(noToken.status).toBe(403);
    expect((await w.svc.core.webhooks.list(w.user, 10, 0)).total).toBe(0);

    const made = await mine.submit(page, page, { url: 'https://example.com/hook?a=<b>&c="d"', events: 'media.ready' });
    expect(made.status).toBe(200);
    expect(made.body).toMatch(/id="new-secret">\s*whsec_/);
    expect(made.body).not.toContain('<b>');
    expect(made.body).toContain('hook?a=&lt;b>&amp;c=&quot;d&quot;');
    const [endpoint] = (await w.svc.core.webhooks.list(w.user, 10, 0)).endpoints;
    // The list and the log show no secret.
    expect((await mine.get(page)).body).not.toContain('whsec_');
    expect((await mine.get(`${page}/${endpoint.uuid}`)).status).toBe(200);

    const bad = await mine.submit(page, page, { url: 'ftp://example.com/', events: '*' });
    expect(bad.status).toBe(422);
    expect(fieldError(bad.body, 'url')).toMatch(/must be an http or https address/);

    expect((await theirs.get(`${page}/${endpoint.uuid}`)).status).toBe(404);
    const token = StudioBrowser.csrf(await theirs.get(page));
    for (const action of ['enable', 'delete', 'deliveries/00000000-0000-4000-8000-000000000000/replay']) {
      expect((await theirs.post(`${page}/${endpoint.uuid}/${action}`, { csrf: token })).status, action).toBe(404);
    }
    expect((await w.svc.core.webhooks.list(w.user, 10, 0)).total).toBe(1);
    const del = await mine.submit(`${page}/${endpoint.uuid}`, `${page}/${endpoint.uuid}/delete`, {});
    expect(del.status).toBe(303);
    expect((await w.svc.core.webhooks.list(w.user, 10, 0)).total).toBe(0);
  });
});
