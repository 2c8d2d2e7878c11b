import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { eachDatabase, TestService, type TestApp, type TestUser } from '../support/service.js';

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    svc = await TestService.start(kind);
    app = await svc.app();
    user = await svc.user({ firstName: 'Ann', lastName: 'Lee' });
    await svc.website(user, 'ann-site');
  });
  afterAll(() => svc?.close());

  it('answers ping, whoami, websites and artists', async () => {
    const c = svc.client(app, user);
    const ping = await c.ping('héllo <x>');
    expect(text(ping.doc, 'message')).toBe('OK');
    expect(text(ping.doc, 'input-text')).toBe('héllo <x>');
    const who = await c.whoami();
    expect(text(who.doc, 'user/firstname')).toBe('Ann');
    const sites = await c.websites('details');
    expect(text(sites.doc, 'websites/website/urlname')).toBe('ann-site');
    expect(text(sites.doc, 'websites/website/root-gallery-uuid')).toMatch(/^[0-9a-f-]{36}$/);
    const artists = await c.artists('details');
    expect(text(artists.doc, 'artists/artist/uuid')).toBe(user.defaultArtistUuid);
  });
});
