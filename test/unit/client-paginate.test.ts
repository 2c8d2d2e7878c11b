import { afterEach, describe, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/client.js';
import { text, type XmlNode } from '../../src/client/xml.js';
import { KEYS, reply, startServer, type TestServer } from './client-test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves `total` galleries, paginated; `<total-pages>` only when asked to. */
async function galleryServer(total: number, withTotalPages: boolean): Promise<TestServer> {
  return startServer((req, res) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const page = Number(q.get('page'));
    const perPage = Number(q.get('per_page'));
    const from = (page - 1) * perPage;
    const uuids = Array.from({ length: Math.max(0, Math.min(perPage, total - from)) }, (_, i) => `g${from + i + 1}`);
    const pages = Math.ceil(total / perPage);
    reply(
      res,
      200,
      `<galleries type="array">${uuids.map((u) => `<gallery><uuid>${u}</uuid></gallery>`).join('')}</galleries>` +
        (withTotalPages ? `<total-pages type="integer">${pages}</total-pages>` : ''),
    );
  });
}

async function collect(it: AsyncIterable<XmlNode>): Promise<string[]> {
  const out: string[] = [];
  for await (const node of it) out.push(text(node, 'uuid') ?? '?');
  return out;
}

function pagesRequested(s: TestServer): string[] {
  return s.requests.map((r) => `${new URL(r.url, 'http://x').searchParams.get('page')}`);
}

describe('client pagination', () => {
  it('stops at the page given by <total-pages>', async () => {
    server = await galleryServer(10, true);
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    const uuids = await collect(client.paginate('/websites/s/galleries.xml', { view: 'list', per_page: 5 }, 'galleries/gallery'));
    expect(uuids).toEqual(['g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7', 'g8', 'g9', 'g10']);
    // Exactly two requests: the full second page does not trigger a third.
    expect(pagesRequested(server)).toEqual(['1', '2']);
    expect(server.requests[0].url).toContain('view=list');
  });

  it('without <total-pages>, stops on a page shorter than per_page', async () => {
    server = await galleryServer(7, false);
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    const uuids = await collect(client.paginate('/websites/s/galleries.xml', { per_page: 3 }, 'galleries/gallery'));
    expect(uuids).toHaveLength(7);
    expect(pagesRequested(server)).toEqual(['1', '2', '3']);
  });

  it('without <total-pages>, stops on an empty page when the total is a multiple of per_page', async () => {
    server = await galleryServer(6, false);
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    const uuids = await collect(client.paginate('/websites/s/galleries.xml', { per_page: 3 }, 'galleries/gallery'));
    expect(uuids).toEqual(['g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
    expect(pagesRequested(server)).toEqual(['1', '2', '3']);
  });

  it('uses the default per_page and an empty first page ends at once', async () => {
    server = await galleryServer(0, true);
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    expect(await collect(client.paginate('/websites/s/galleries.xml', {}, 'galleries/gallery'))).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(new URL(server.requests[0].url, 'http://x').searchParams.get('per_page')).toBe('100');
  });

  it('starts from the given page', async () => {
    server = await galleryServer(9, true);
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    const uuids = await collect(client.paginate('/websites/s/galleries.xml', { page: 2, per_page: 4 }, 'galleries/gallery'));
    expect(uuids).toEqual(['g5', 'g6', 'g7', 'g8', 'g9']);
    expect(pagesRequested(server)).toEqual(['2', '3']);
  });
});
