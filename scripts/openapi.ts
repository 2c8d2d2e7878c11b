// Writes docs/openapi.json from the route tables of a service built over a throwaway SQLite
// store (nothing listens); test/api/openapi.test.ts fails when the copy differs. `--check`: exit 1 on drift.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openApiDocument } from '../src/http/openapi.js';

export const OPENAPI_COPY = new URL('../docs/openapi.json', import.meta.url);

const dataDir = await mkdtemp(join(tmpdir(), 'mps-openapi-'));
try {
  const app = await buildApp(loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT: 'off' }));
  const text = `${JSON.stringify(openApiDocument(app.routes), null, 2)}\n`;
  await app.close();
  if (process.argv.includes('--check')) {
    const old = await readFile(OPENAPI_COPY, 'utf8').catch(() => '');
    if (old !== text) {
      console.error('docs/openapi.json differs from the route declarations: run npm run openapi');
      process.exitCode = 1;
    }
  } else {
    await writeFile(OPENAPI_COPY, text);
    console.log(`docs/openapi.json: ${Object.keys(openApiDocument(app.routes).paths as object).length} paths`);
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
