// The studio's gallery tree and gallery settings over HTTP (docs/studio.md "Galleries"), on
// SQLite and PostgreSQL: every change is read back through the signed API, the tree's moves
// (cycles refused), sibling order, delete with or without the photos, the password the public
// website then asks for, the access list, another owner's gallery a 404, CSRF on every post.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, bool, int, text } from '../../src/client/xml.js';
import { createGallery, insertMedias, updateMedia } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { linkIn, startSmtp, type TestSmtp } from '../support/smtp.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let tree: string;
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    w = await startWorld(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' });
    b = await new StudioBrowser(w.svc).signIn(w.user);
    tree = `/studio/websites/${w.urlname}/galleries`;
  });
  afterAll(async () => {
    await w?.svc.close();
    await smtp?.close();
  });

  const details = async (uuid: string, view = 'details') => (await w.client.request('GET', `/websites/${w.urlname}/galleries/${uuid}.xml`, { view })).doc;
  const parentOf = async (uuid: string) => text(await details(uuid), 'gallery/parent-uuid');
  const childNames = async (uuid: string) => all((await w.client.request('GET', `/websites/${w.urlname}/galleries/${uuid}/subgalleries.xml`)).doc, 'galleries/gallery').filter((g) => text(g, 'parent-uuid') === uuid).map((g) => text(g, 'name'));
  const apiStatus = (path: string) => w.client.request('GET', path).then((r) => r.status, (e: { status: number }) => e.status);
  /** Creates a gallery through the studio's form; its UUID from the redirect. */
  const studioCreate = async (name: string, parent: string) => {
    const res = await b.submit(tree, tree, { name, parent });
    expect(res.status).toBe(303);
    return /#g-([0-9a-f-]{36})$/.exec(res.headers.get('location')!)![1];
  };
  /** A script's JSON move, as browser/galleries.js sends it. */
  const jsonMove = (uuid: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${w.svc.url}/studio/galleries/${uuid}/move`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: [...b.jar].map(([k, v]) => `${k}=${v}`).join('; '),
        origin: w.svc.url,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/json',
        accept: 'application/json',
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const csrfHeader = async () => ({ 'x-studio-csrf': /name="studio-csrf" content="([^"]+)"/.exec((await b.get(tree)).body)![1] });

  describe('the tree', () => {
    it('shows the tree with counts, creates galleries through the API’s service, and refuses a blank name with its message', async () => {
      const travel = await studioCreate('Travel', w.rootUuid);
      const asia = await studioCreate('Asia', travel);
      expect(await parentOf(travel)).toBe(w.rootUuid);
      expect(await parentOf(asia)).toBe(travel);
      const [m] = await insertMedias(w.svc.db, w.user, 1);
      await updateMedia(w.client, m, { 'media[publish_to_galleries]': asia });
      const page = await b.get(tree);
      expect(page.status).toBe(200);
      expect(page.body).toMatch(new RegExp(`id="g-${asia}"[\\s\\S]*?Asia</a><span class="count">1 photo</span>`));
      // Nested: Asia's item is inside Travel's list item.
      expect(page.body.indexOf(`id="g-${asia}"`)).toBeGreaterThan(page.body.indexOf(`id="g-${travel}"`));
      const blank = await b.submit(tree, tree, { name: '  ', parent: w.rootUuid });
      expect(blank.status).toBe(422);
      expect(blank.body).toContain('name');
      expect(blank.body).toMatch(/class="alert" role="alert"/);
    });

    it('moves a gallery with the Move… form and refuses a move under itself or its own sub-gallery', async () => {
      const a = await createGallery(w, 'Move A');
      const a1 = await createGallery(w, 'Move A1', a);
      const b1 = await createGallery(w, 'Move B');
      const page = await b.get(`/studio/galleries/${a}/move`);
      expect(page.status).toBe(200);
      // The select offers neither the gallery itself nor what is below it.
      expect(page.body).not.toContain(`value="${a1}"`);
      expect(page.body).not.toMatch(new RegExp(`<option value="${a}"`));
      expect(page.body).toContain(`value="${b1}"`);
      const moved = await b.submit(`/studio/galleries/${a}/move`, `/studio/galleries/${a}/move`, { parent: b1 });
      expect(moved.status).toBe(303);
      expect(await parentOf(a)).toBe(b1);
      // A cycle, sent anyway (a stale page, a hand-made form): the service refuses it, nothing changes.
      const cycle = await b.submit(`/studio/galleries/${b1}/move`, `/studio/galleries/${b1}/move`, { parent: a1 });
      expect(cycle.status).toBe(422);
      expect(cycle.body).toContain('cannot be moved under itself or one of its own sub-galleries');
      expect(await parentOf(b1)).toBe(w.rootUuid);
      const self = await jsonMove(a, { parent: a, position: 1 }, await csrfHeader());
      expect(self.status).toBe(422);
      expect(((await self.json()) as { error: string }).error).toContain('cannot be moved under itself');
      expect(await parentOf(a)).toBe(b1);
    });

    it('reorders siblings with the up/down buttons and the script’s JSON move, as the API lists them', async () => {
      const p = await createGallery(w, 'Order parent');
      const [x, y, z] = [await createGallery(w, 'X', p), await createGallery(w, 'Y', p), await createGallery(w, 'Z', p)];
      expect(await childNames(p)).toEqual(['X', 'Y', 'Z']);
      const order = `${tree}/order`;
      expect((await b.submit(tree, order, { down: x })).status).toBe(303);
      expect(await childNames(p)).toEqual(['Y', 'X', 'Z']);
      expect((await b.submit(tree, order, { up: z })).status).toBe(303);
      expect(await childNames(p)).toEqual(['Y', 'Z', 'X']);
      const res = await jsonMove(x, { parent: p, position: 1 }, await csrfHeader());
      expect(res.status).toBe(200);
      expect(await childNames(p)).toEqual(['X', 'Y', 'Z']);
      // Into another parent at a place: drop "before Y" of a gallery from elsewhere.
      const other = await createGallery(w, 'W');
      expect((await jsonMove(other, { parent: p, position: 2 }, await csrfHeader())).status).toBe(200);
      expect(await childNames(p)).toEqual(['X', 'W', 'Y', 'Z']);
      // The API's extension does the same; the list stays dense (total-entries = the highest position).
      await w.client.request('PUT', `/websites/${w.urlname}/galleries/${z}.xml`, { 'gallery[position]': '1' });
      expect(await childNames(p)).toEqual(['Z', 'X', 'W', 'Y']);
      const list = await w.client.request('GET', `/websites/${w.urlname}/galleries.xml`, { page: '1', per_page: '500' });
      expect(all(list.doc, 'galleries/gallery').length).toBe(int(list.doc, 'total-entries'));
      expect(y).toBeTruthy();
    });

    it('deletes a gallery after showing what would go, keeping the photos or deleting them too', async () => {
      const keep = await createGallery(w, 'Keep photos');
      const inner = await createGallery(w, 'Keep inner', keep);
      const gone = await createGallery(w, 'Delete photos');
      const [m1, m2, m3] = await insertMedias(w.svc.db, w.user, 3);
      await updateMedia(w.client, m1, { 'media[publish_to_galleries]': keep });
      await updateMedia(w.client, m2, { 'media[publish_to_galleries]': inner });
      await updateMedia(w.client, m3, { 'media[publish_to_galleries]': gone });
      const confirm = await b.get(`/studio/galleries/${keep}/delete`);
      expect(confirm.status).toBe(200);
      expect(confirm.body).toContain('and the 1 gallery inside it');
      expect(confirm.body).toContain('2 photos of yours are published');
      expect(confirm.body).toContain('name="medias_count" value="2"');
      const kept = await b.post(`/studio/galleries/${keep}/delete`, { csrf: StudioBrowser.csrf(confirm), medias: 'keep', medias_count: '2' });
      expect(kept.status).toBe(303);
      expect(await apiStatus(`/websites/${w.urlname}/galleries/${keep}.xml`)).toBe(404);
      expect(await apiStatus(`/websites/${w.urlname}/galleries/${inner}.xml`)).toBe(404);
      expect(await apiStatus(`/medias/${m1}.xml`)).toBe(200);
      expect(await apiStatus(`/medias/${m2}.xml`)).toBe(200);
      // A count that changed since the page was shown: nothing deleted, the new count shown.
      const stale = await b.submit(`/studio/galleries/${gone}/delete`, `/studio/galleries/${gone}/delete`, { medias: 'delete', medias_count: '7' });
      expect(stale.status).toBe(409);
      expect(stale.body).toContain('1 photo of yours is published');
      expect(await apiStatus(`/websites/${w.urlname}/galleries/${gone}.xml`)).toBe(200);
      const deleted = await b.submit(`/studio/galleries/${gone}/delete`, `/studio/galleries/${gone}/delete`, { medias: 'delete', medias_count: '1' });
      expect(deleted.status).toBe(303);
      expect(await apiStatus(`/websites/${w.urlname}/galleries/${gone}.xml`)).toBe(404);
      expect(await apiStatus(`/medias/${m3}.xml`)).toBe(404);
      // The root cannot be deleted: no confirm page.
      expect((await b.get(`/studio/galleries/${w.rootUuid}/delete`)).status).toBe(404);
    });
  });

  describe('a gallery’s settings', () => {
    it('saves the settings and the API answers them; a refused value is shown at its field', async () => {
      const g = await createGallery(w, 'Settings');
      const [m] = await insertMedias(w.svc.db, w.user, 1);
      await updateMedia(w.client, m, { 'media[publish_to_galleries]': g });
      const page = await b.get(`/studio/galleries/${g}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`/studio/thumbs/${m}`);
      expect(page.body).toContain(`href="${w.svc.url}/sites/${w.urlname}/-/settings"`);
      expect(page.body).toContain(`/studio/upload?gallery=${g}`);
      expect(page.body).toContain(`/studio/media?gallery=${g}`);
      const fields = { name: 'Wedding <Anna & Tom>', description: 'The day', display_style: '', cover: m, content_order: 'file_name', content_order_direction: 'desc', hidden: '1', indexing: '0' };
      const saved = await b.post(`/studio/galleries/${g}`, { csrf: StudioBrowser.csrf(page), ...fields });
      expect(saved.status).toBe(303);
      const doc = await details(g);
      expect(text(doc, 'gallery/name')).toBe('Wedding <Anna & Tom>');
      expect(text(doc, 'gallery/description')).toBe('The day');
      expect(text(doc, 'gallery/cover-media-uuid')).toBe(m);
      expect(text(doc, 'gallery/content-order')).toBe('file_name');
      expect(text(doc, 'gallery/content-order-direction')).toBe('desc');
      expect(bool(doc, 'gallery/hidden')).toBe(true);
      expect(int(doc, 'gallery/indexing')).toBe(0);
      const again = await b.get(`/studio/galleries/${g}`);
      expect(again.body).toContain('Wedding &lt;Anna &amp; Tom>');
      const bad = await b.post(`/studio/galleries/${g}`, { csrf: StudioBrowser.csrf(page), ...fields, content_order: 'random' });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatch(/id="content_order-error"[^>]*>content order must be one of/);
      const notMine = await b.post(`/studio/galleries/${g}`, { csrf: StudioBrowser.csrf(page), ...fields, cover: '00000000-0000-4000-8000-000000000000' });
      expect(notMine.status).toBe(422);
      expect(notMine.body).toContain('id="cover-error"');
    });

    it('sets a password, and the public website asks for it; removes it, and the website shows the gallery', async () => {
      const g = await createGallery(w, 'Private');
      const publicPath = `/sites/${w.urlname}/-/private`;
      expect((await (await fetch(w.svc.url + publicPath)).text())).not.toContain('protected by a password');
      const set = await b.submit(`/studio/galleries/${g}`, `/studio/galleries/${g}/password`, { password: 'open sesame' });
      expect(set.status).toBe(303);
      expect(bool(await details(g), 'gallery/password-protected')).toBe(true);
      const visitor = await fetch(w.svc.url + publicPath);
      const html = await visitor.text();
      expect(html).toContain('This gallery is protected by a password.');
      expect(html).toContain('name="password"');
      expect((await b.get(`/studio/galleries/${g}`)).body).toContain('Remove the password');
      const removed = await b.submit(`/studio/galleries/${g}`, `/studio/galleries/${g}/password`, { remove: '1' });
      expect(removed.status).toBe(303);
      expect(bool(await details(g), 'gallery/password-protected')).toBe(false);
      const empty = await b.submit(`/studio/galleries/${g}`, `/studio/galleries/${g}/password`, { password: '' });
      expect(empty.status).toBe(422);
      expect(bool(await details(g), 'gallery/password-protected')).toBe(false);
    });

    it('keeps a gallery without a list when its access list is saved untouched (the service’s rule), and keeps a list once it has one', async () => {
      const g = await createGallery(w, 'Open');
      const page = `/studio/galleries/${g}`;
      const entries = async () => all(await details(g), 'gallery/acl/entry').length;
      // Everyone may view, nothing more, and no client: no list at all (children still inherit their downloads).
      expect((await b.submit(page, `${page}/acl`, { default_read: '1' })).status).toBe(303);
      expect(await entries()).toBe(0);
      // A client, then the client removed: the list stays (DEFAULT alone now decides).
      expect((await b.submit(page, `${page}/acl`, { default_read: '1', new_email: 'c@example.com', new_read: '1' })).status).toBe(303);
      expect(await entries()).toBe(2);
      expect((await b.submit(page, `${page}/acl`, { default_read: '1', entry: '1', '1_email': 'c@example.com', '1_remove': '1' })).status).toBe(303);
      expect(await entries()).toBe(1);
    });

    it('edits the access list (DEFAULT and clients) and invites a client; the API shows the same list', async () => {
      const g = await createGallery(w, 'Proofs');
      const acl = async () => all(await details(g), 'gallery/acl/entry').map((e) => [text(e, 'email'), bool(e, 'read'), bool(e, 'comp-download'), bool(e, 'hires-download')]);
      const page = `/studio/galleries/${g}`;
      let res = await b.submit(page, `${page}/acl`, { new_email: 'Client@Example.com', new_read: '1', new_comp_download: '1' });
      expect(res.status).toBe(303);
      // Everyone lost "view" (the box was not sent checked), the client may view and download web size.
      expect(await acl()).toEqual([
        ['DEFAULT', false, false, false],
        ['client@example.com', true, true, false],
      ]);
      const form = await b.get(page);
      expect(form.body).toContain('<legend>client@example.com</legend>');
      // Change the client's rights, add another, then remove the first.
      res = await b.post(`${page}/acl`, { csrf: StudioBrowser.csrf(form), entry: '1', '1_email': 'client@example.com', '1_read': '1', '1_hires_download': '1', new_email: 'agency@example.org', new_read: '1' });
      expect(res.status).toBe(303);
      expect(await acl()).toEqual([
        ['DEFAULT', false, false, false],
        ['client@example.com', true, false, true],
        ['agency@example.org', true, false, false],
      ]);
      const bad = await b.submit(page, `${page}/acl`, { default_read: '1', entry: '1', '1_email': 'client@example.com', '1_read': '1', new_email: 'not an address' });
      expect(bad.status).toBe(422);
      expect(bad.body).toContain('entry 2 (email) must be an e-mail address');
      res = await b.submit(page, `${page}/acl`, { default_read: '1', entry: '2', '2_email': 'agency@example.org', '2_read': '1', '1_remove': '1' });
      expect(res.status).toBe(303);
      expect(await acl()).toEqual([
        ['DEFAULT', true, false, false],
        ['agency@example.org', true, false, false],
      ]);
      // Invite: the client joins the list with the rights chosen, and the API's invitation service mails them a sign-in link with the message.
      const invited = await b.submit(page, `${page}/invite`, { email: 'Bride@Example.com', message: 'Your photos', hires_download: '1' });
      expect(invited.status).toBe(303);
      expect(invited.headers.get('location')).toContain('done=invited');
      expect(await acl()).toContainEqual(['bride@example.com', true, false, true]);
      let mail = smtp.mails.find((m) => m.to.includes('bride@example.com'));
      for (let i = 0; !mail && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 100));
        mail = smtp.mails.find((m) => m.to.includes('bride@example.com'));
      }
      expect(mail, 'the invitation mail').toBeDefined();
      expect(mail!.raw).toContain('Your photos');
      expect(linkIn(mail!)).toMatch(/\/_signin\//);
      const noMail = await b.submit(page, `${page}/invite`, { email: '' });
      expect(noMail.status).toBe(422);
      const notAnAddress = await b.submit(page, `${page}/invite`, { email: 'not an address' });
      expect(notAnAddress.status).toBe(422);
      expect(fieldError(notAnAddress.body, 'invite_email')).toContain('must be an e-mail address');
      // An address already on the list keeps its entry and gets the rights chosen now (GalleriesService.grant).
      const before = (await acl()).length;
      expect((await b.submit(page, `${page}/invite`, { email: 'Agency@Example.org', comp_download: '1' })).status).toBe(303);
      expect(await acl()).toContainEqual(['agency@example.org', true, true, false]);
      expect((await acl()).length).toBe(before);
      // An operator stopped this photographer's mail: the refusal is shown at the invitation's field, nothing is sent.
      await w.svc.core.users.setMailStopped({ email: w.user.email }, true);
      try {
        const stopped = await b.submit(page, `${page}/invite`, { email: 'late@example.com' });
        expect(stopped.status).toBe(403);
        expect(fieldError(stopped.body, 'invite_email')).toContain('stopped');
        await w.svc.service.visitors.mailer.idle();
        expect(smtp.mails.find((m) => m.to.includes('late@example.com'))).toBeUndefined();
      } finally {
        await w.svc.core.users.setMailStopped({ email: w.user.email }, false);
      }
    });
  });

  describe('access and CSRF', () => {
    it('answers 404 for another owner’s website and galleries, and changes nothing', async () => {
      const owner = await w.svc.user();
      const site = await w.svc.website(owner);
      const theirs = text((await w.svc.client(await w.svc.app(), owner).createGallery(site.urlname, { name: 'Theirs', parent: site.rootGalleryUuid })).doc, 'gallery/uuid')!;
      const mine = await createGallery(w, 'Mine');
      expect((await b.get(`/studio/websites/${site.urlname}/galleries`)).status).toBe(404);
      for (const path of [`/studio/galleries/${theirs}`, `/studio/galleries/${theirs}/move`, `/studio/galleries/${theirs}/delete`, '/studio/galleries/not-a-uuid']) expect((await b.get(path)).status).toBe(404);
      const page = await b.get(tree);
      const csrf = StudioBrowser.csrf(page);
      expect((await b.post(`/studio/galleries/${theirs}`, { csrf, name: 'Taken' })).status).toBe(404);
      expect((await b.post(`/studio/galleries/${theirs}/password`, { csrf, password: 'x' })).status).toBe(404);
      expect((await b.post(`/studio/galleries/${theirs}/delete`, { csrf, medias: 'keep' })).status).toBe(404);
      // Nor may one of mine go under theirs.
      expect((await b.post(`/studio/galleries/${mine}/move`, { csrf, parent: theirs })).status).toBe(422);
      expect((await b.post(`/studio/websites/${site.urlname}/galleries`, { csrf, name: 'Intruder', parent: site.rootGalleryUuid })).status).toBe(404);
      const their = w.svc.client(await w.svc.app(), owner);
      expect(text((await their.request('GET', `/websites/${site.urlname}/galleries/${theirs}.xml`)).doc, 'gallery/name')).toBe('Theirs');
      expect(bool((await their.request('GET', `/websites/${site.urlname}/galleries/${theirs}.xml`)).doc, 'gallery/password-protected')).toBe(false);
    });

    it('lets a member of a shared website work on its tree as the API lets them, and nothing of another website', async () => {
      const member = await w.svc.user();
      await w.svc.core.websites.share(w.urlname, member);
      const m = await new StudioBrowser(w.svc).signIn(member);
      const mine = await createGallery(w, 'Shared work');
      expect((await m.get(tree)).body).toContain(`id="g-${mine}"`);
      const made = await m.submit(tree, tree, { name: 'By the member', parent: mine });
      expect(made.status).toBe(303);
      const theirs = /#g-([0-9a-f-]{36})$/.exec(made.headers.get('location')!)![1];
      expect(await parentOf(theirs)).toBe(mine);
      const page = await m.get(`/studio/galleries/${theirs}`);
      expect(page.status).toBe(200);
      const saved = await m.post(`/studio/galleries/${theirs}/password`, { csrf: StudioBrowser.csrf(page), password: 'member pass' });
      expect(saved.status).toBe(303);
      expect(bool(await details(theirs), 'gallery/password-protected')).toBe(true);
      // The member's own website list holds the shared one only; another website stays a 404.
      const stranger = await w.svc.website(await w.svc.user());
      expect((await m.get(`/studio/websites/${stranger.urlname}/galleries`)).status).toBe(404);
      expect((await m.get(`/studio/galleries/${stranger.rootGalleryUuid}`)).status).toBe(404);
    });

    it('refuses every post without the session’s token (forms and the script’s JSON move), and nothing changes', async () => {
      const g = await createGallery(w, 'Guarded');
      const target = await createGallery(w, 'Target');
      const posts: [string, Record<string, string>][] = [
        [tree, { name: 'Forged', parent: w.rootUuid }],
        [`${tree}/order`, { down: g }],
        [`/studio/galleries/${g}`, { name: 'Forged' }],
        [`/studio/galleries/${g}/password`, { password: 'forged' }],
        [`/studio/galleries/${g}/acl`, { new_email: 'forged@example.com', new_read: '1' }],
        [`/studio/galleries/${g}/invite`, { email: 'forged@example.com' }],
        [`/studio/galleries/${g}/move`, { parent: target }],
        [`/studio/galleries/${g}/delete`, { medias: 'keep' }],
      ];
      for (const [path, fields] of posts) {
        expect((await b.post(path, fields)).status, path).toBe(403);
        expect((await b.post(path, { ...fields, csrf: 'wrong' })).status, path).toBe(403);
      }
      // From a foreign origin, with the right token.
      const csrf = StudioBrowser.csrf(await b.get(tree));
      expect((await b.post(`/studio/galleries/${g}/password`, { csrf, password: 'forged' }, { origin: 'https://evil.example', site: 'cross-site' })).status).toBe(403);
      expect((await jsonMove(g, { parent: target })).status).toBe(403);
      expect((await jsonMove(g, { parent: target }, { 'x-studio-csrf': 'wrong' })).status).toBe(403);
      expect((await jsonMove(g, { parent: target }, { ...(await csrfHeader()), origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      const doc = await details(g);
      expect(text(doc, 'gallery/name')).toBe('Guarded');
      expect(text(doc, 'gallery/parent-uuid')).toBe(w.rootUuid);
      expect(bool(doc, 'gallery/password-protected')).toBe(false);
      expect(all(doc, 'gallery/acl/entry')).toHaveLength(0);
      expect(all((await w.client.request('GET', `/websites/${w.urlname}/galleries.xml`)).doc, 'galleries/gallery').map((x) => text(x, 'name'))).not.toContain('Forged');
    });
  });
});
