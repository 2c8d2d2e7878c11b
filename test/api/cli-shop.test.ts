// The shop's admin commands, run from the build as operators run them:
// `payments stripe` (docs/shop.md "Card payments") stores a photographer's
// Stripe keys sealed and prints only {"webhookUrl"}, no secret ever reaching
// stdout, stderr or the database in clear; `orders export` writes the two CSV files.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/database/db.js';
import { buildIfStale, childEnv, runBuilt } from '../support/processes.js';
import { createPgDatabase, eachDatabase } from '../support/service.js';

beforeAll(buildIfStale, 300_000);

eachDatabase((kind) => {
  let dataDir: string;
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  const KEY = randomBytes(32).toString('hex');
  const SK = `sk_live_${randomBytes(16).toString('hex')}`;
  const WHSEC = `whsec_${randomBytes(16).toString('hex')}`;
  const admin = (env: Record<string, string>, ...args: string[]) =>
    runBuilt('cli/admin.js', args, { env: childEnv({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PUBLIC_URL: 'https://photos.example.com', ...env }) });

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mps-cli-pay-'));
    if (kind === 'postgres') ({ url: databaseUrl, drop } = await createPgDatabase());
    const made = await admin({}, 'user', 'create', '--email', 'ann@example.com', '--password', 'correct horse battery', '--json');
    expect(made.code, made.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await drop?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores the keys sealed and prints {"webhookUrl"} only', { timeout: 60_000 }, async () => {
    const res = await admin({ PAYMENT_SECRETS_KEY: KEY }, 'payments', 'stripe', '--owner', 'ann@example.com', '--secret-key', SK, '--webhook-secret', WHSEC, '--json');
    expect([res.code, res.stderr]).toEqual([0, '']);
    const out = JSON.parse(res.stdout) as Record<string, string>;
    expect(Object.keys(out)).toEqual(['webhookUrl']);
    expect(out.webhookUrl).toMatch(/^https:\/\/photos\.example\.com\/payments\/stripe\/[A-Za-z0-9_-]{32}\/webhook\.xml$/);
    expect(res.stdout).not.toContain(SK);
    const store = openStore({ dataDir, databaseUrl });
    try {
      const row = await store.db.selectFrom('payment_accounts').selectAll().executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(SK.slice(8));
      expect(JSON.stringify(row)).not.toContain(WHSEC.slice(6));
    } finally {
      await store.close();
    }
    // Again: the keys are replaced, the address stays.
    const again = await admin({ PAYMENT_SECRETS_KEY: KEY }, 'payments', 'stripe', '--owner', 'ann@example.com', '--secret-key', SK, '--webhook-secret', WHSEC, '--json');
    expect(JSON.parse(again.stdout)).toEqual(out);
  });

  it('refuses without PAYMENT_SECRETS_KEY, and a malformed key without repeating it', { timeout: 60_000 }, async () => {
    const none = await admin({}, 'payments', 'stripe', '--owner', 'ann@example.com', '--secret-key', SK, '--webhook-secret', WHSEC);
    expect([none.code, none.stderr]).toEqual([1, expect.stringContaining('PAYMENT_SECRETS_KEY')]);
    const bad = await admin({ PAYMENT_SECRETS_KEY: KEY }, 'payments', 'stripe', '--owner', 'ann@example.com', '--secret-key', 'pk_live_oops123456', '--webhook-secret', WHSEC);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('secret key')]);
    expect(bad.stderr + bad.stdout).not.toContain('oops123456');
    expect(bad.stderr + bad.stdout).not.toContain(WHSEC);
  });

  it('orders export writes orders_Report_<date>.csv and orders_items_<date>.csv into --out', { timeout: 60_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'mps-export-'));
    try {
      const res = await admin({}, 'orders', 'export', '--owner', 'ann@example.com', '--out', out, '--json');
      expect([res.code, res.stderr]).toEqual([0, '']);
      const day = new Date().toISOString().slice(0, 10);
      expect(JSON.parse(res.stdout)).toEqual({ orders: 0, files: [join(out, `orders_Report_${day}.csv`), join(out, `orders_items_${day}.csv`)] });
      expect(await readFile(join(out, `orders_Report_${day}.csv`), 'utf8')).toBe('"id";"client";"payment state";"date";"paid at";"subtotal";"discount";"tax";"total";"currency";"coupon";"tax rate";"tax label";"terms accepted at"\r\n');
      expect(await readFile(join(out, `orders_items_${day}.csv`), 'utf8')).toMatch(/^"order id";"media file name";/);
      const missing = await admin({}, 'orders', 'export', '--owner', 'ann@example.com', '--out', join(out, 'nope'));
      expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('cannot write into --out')]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
