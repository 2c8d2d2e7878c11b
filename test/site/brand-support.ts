// What the brand tests share: a logo uploaded to the photographer's library.
import sharp from 'sharp';
import { find, text } from '../../src/client/xml.js';
import { postUpload, uploadParamsOf } from '../api/uploads-support.js';
import type { World } from '../support/world.js';

/** A transparent PNG logo, uploaded through the three steps and published nowhere. */
export async function uploadLogo(w: Pick<World, 'client'>, label = 'ANN LEE'): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="160"><rect x="8" y="40" width="80" height="80" rx="16" fill="#c2410c"/><text x="110" y="112" font-family="sans-serif" font-size="72" font-weight="700" fill="#1a1a1a">${label}</text></svg>`;
  const data = await sharp(Buffer.from(svg)).png().toBuffer();
  const r1 = await w.client.request('POST', '/medias.xml', {
    'media[content][upload_location]': 'REQUEST',
    'media[content][file_name]': 'logo.png',
    'media[content][file_size]': data.length,
    'media[content][mime_type]': 'image/png',
    'media[title]': 'Logo',
  });
  const media = find(r1.doc, 'media')!;
  const r2 = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: text(media, 'upload-file-param')!, data, name: 'logo.png', type: 'image/png' });
  // The service answers 200; an S3 bucket answers a presigned POST with 204.
  if (r2.status < 200 || r2.status >= 300) throw new Error(`upload step 2 answered ${r2.status}`);
  await w.client.completeUpload(media, data.length);
  return text(media, 'uuid')!;
}

