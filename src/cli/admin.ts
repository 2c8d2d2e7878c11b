// The admin command line of operations.md: `npm run --silent admin -- <command>`.
// Works while the server runs (same DATA_DIR / DATABASE_URL). With --json it
// prints one JSON object on stdout; a bad argument exits 1 with one line on stderr.
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { loadConfig } from '../config.js';
import { migrate, nowIso, openStore, type Db } from '../store/db.js';
import { createUser, findUserByEmail } from '../users/queries.js';
import { isValidBase32Secret } from '../http/totp.js';
import { createWebsite, isValidUrlname } from '../websites/queries.js';

class UsageError extends Error {}

type Opts = Record<string, string | boolean | string[] | undefined>;
type Result = { json: Record<string, unknown>; text: string };

interface Command {
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  run(db: Db, o: Opts, config: ReturnType<typeof loadConfig>): Promise<Result>;
}

const str = (o: Opts, name: string, required = true): string | undefined => {
  const v = o[name];
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
};

async function ownerId(db: Db, email: string): Promise<number> {
  const user = await findUserByEmail(db, email);
  if (!user) throw new UsageError(`no user with e-mail ${email}`);
  return user.id;
}

const EMAIL = /^[^\s@"\\]+@[^\s@"\\]+\.[^\s@"\\]+$/;

const commands: Record<string, Command> = {
  'user create': {
    options: { email: { type: 'string' }, password: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' }, 'otp-secret': { type: 'string' } },
    async run(db, o) {
      const email = str(o, 'email')!.toLowerCase();
      if (!EMAIL.test(email)) throw new UsageError(`--email is not an e-mail address: ${email}`);
      const password = str(o, 'password')!;
      if (password.length < 8) throw new UsageError('--password must have at least 8 characters');
      const otp = str(o, 'otp-secret', false);
      if (otp && !isValidBase32Secret(otp)) throw new UsageError('--otp-secret must be a base32 secret of at least 80 bits');
      if (await findUserByEmail(db, email)) throw new UsageError(`a user with e-mail ${email} exists already`);
      const { user } = await createUser(db, { email, password, firstName: str(o, 'first-name', false), lastName: str(o, 'last-name', false), otpSecret: otp });
      return { json: { uuid: user.uuid, email: user.email }, text: `user ${user.email} created (${user.uuid})` };
    },
  },
  'app create': {
    // --dotenv prints the lines the `api` command reads from .env.
    options: { name: { type: 'string' }, dotenv: { type: 'boolean' } },
    async run(db, o) {
      const name = str(o, 'name')!;
      const key = randomBytes(16).toString('hex');
      const secret = randomBytes(32).toString('hex');
      await db.insertInto('apps').values({ name, api_key: key, api_secret: secret, created_at: nowIso() }).execute();
      if (o.dotenv) return { json: { key, secret }, text: `MPS_API_KEY=${key}\nMPS_API_SECRET=${secret}` };
      return { json: { key, secret }, text: `application ${name}\nkey:    ${key}\nsecret: ${secret}` };
    },
  },
  'website create': {
    options: { owner: { type: 'string' }, urlname: { type: 'string' }, title: { type: 'string' }, hostname: { type: 'string' } },
    async run(db, o) {
      const owner = await ownerId(db, str(o, 'owner')!);
      const urlname = str(o, 'urlname')!;
      if (!isValidUrlname(urlname)) throw new UsageError('--urlname must be lower-case letters, digits and dashes (at most 63)');
      const hostname = str(o, 'hostname', false);
      if (hostname && !/^[a-z0-9.-]+(:\d+)?$/i.test(hostname)) throw new UsageError('--hostname must be a host name');
      if (await db.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirst()) {
        throw new UsageError(`urlname ${urlname} is taken`);
      }
      const w = await createWebsite(db, { ownerId: owner, urlname, title: str(o, 'title', false), hostname });
      return { json: w, text: `website ${w.urlname} created (${w.uuid}), root gallery ${w.rootGalleryUuid}` };
    },
  },
  'website share': {
    options: { urlname: { type: 'string' }, user: { type: 'string' } },
    async run(db, o) {
      const urlname = str(o, 'urlname')!;
      const website = await db.selectFrom('websites').select(['id', 'uuid']).where('urlname', '=', urlname).executeTakeFirst();
      if (!website) throw new UsageError(`no website ${urlname}`);
      const userId = await ownerId(db, str(o, 'user')!);
      const exists = await db.selectFrom('website_members').select('user_id').where('website_id', '=', website.id).where('user_id', '=', userId).executeTakeFirst();
      if (!exists) await db.insertInto('website_members').values({ website_id: website.id, user_id: userId }).execute();
      return { json: { uuid: website.uuid, urlname }, text: `website ${urlname} shared` };
    },
  },
  'artist create': {
    options: { owner: { type: 'string' }, name: { type: 'string' } },
    async run(db, o) {
      const owner = await ownerId(db, str(o, 'owner')!);
      const uuid = randomUUID();
      await db.insertInto('artists').values({ uuid, owner_id: owner, name: str(o, 'name')!, is_default: 0, created_at: nowIso() }).execute();
      return { json: { uuid }, text: `media library created (${uuid})` };
    },
  },
  'pricing-profile create': {
    options: { owner: { type: 'string' }, name: { type: 'string' } },
    async run(db, o) {
      const owner = await ownerId(db, str(o, 'owner')!);
      const uuid = randomUUID();
      await db.insertInto('pricing_profiles').values({ uuid, owner_id: owner, name: str(o, 'name')!, created_at: nowIso() }).execute();
      return { json: { uuid }, text: `pricing profile created (${uuid})` };
    },
  },
  'watermark create': {
    options: { artist: { type: 'string' }, text: { type: 'string' }, file: { type: 'string' }, default: { type: 'boolean' } },
    async run(db, o, config) {
      const artistUuid = str(o, 'artist')!;
      const artist = await db.selectFrom('artists').select('id').where('uuid', '=', artistUuid).executeTakeFirst();
      if (!artist) throw new UsageError(`no media library ${artistUuid}`);
      const text = str(o, 'text', false);
      const file = str(o, 'file', false);
      if ((text === undefined) === (file === undefined)) throw new UsageError('give exactly one of --text or --file');
      const uuid = randomUUID();
      let fileName: string | null = null;
      let storageKey: string | null = null;
      let width: number | null = null;
      let height: number | null = null;
      if (file) {
        let meta;
        try {
          meta = await sharp(file).metadata();
        } catch (err) {
          throw new UsageError(`--file ${file} is not a readable image: ${(err as Error).message}`);
        }
        width = meta.width ?? null;
        height = meta.height ?? null;
        fileName = file.split(/[\\/]/).pop()!.replace(/["\\\r\n]/g, '_');
        storageKey = join('watermarks', uuid + extname(file).toLowerCase());
        await mkdir(join(config.dataDir, 'watermarks'), { recursive: true });
        await copyFile(file, join(config.dataDir, storageKey));
      }
      const isDefault = o.default === true;
      await db.transaction().execute(async (trx) => {
        if (isDefault) await trx.updateTable('watermarks').set({ is_default: 0 }).where('artist_id', '=', artist.id).execute();
        await trx
          .insertInto('watermarks')
          .values({ uuid, artist_id: artist.id, text: text ?? null, file_name: fileName, storage_key: storageKey, width, height, is_default: isDefault ? 1 : 0, created_at: nowIso() })
          .execute();
      });
      return { json: { uuid }, text: `watermark created (${uuid})` };
    },
  },
  'lightbox create': {
    options: { owner: { type: 'string' }, name: { type: 'string' }, media: { type: 'string', multiple: true } },
    async run(db, o) {
      const owner = await ownerId(db, str(o, 'owner')!);
      const mediaUuids = (o.media as string[] | undefined) ?? [];
      const medias = mediaUuids.length
        ? await db.selectFrom('medias').select(['id', 'uuid']).where('uuid', 'in', mediaUuids).where('owner_id', '=', owner).execute()
        : [];
      const missingUuid = mediaUuids.find((u) => !medias.some((m) => m.uuid === u));
      if (missingUuid) throw new UsageError(`no media ${missingUuid} owned by that user`);
      const uuid = randomUUID();
      await db.transaction().execute(async (trx) => {
        const lb = await trx.insertInto('lightboxes').values({ uuid, owner_id: owner, name: str(o, 'name')!, created_at: nowIso() }).returning('id').executeTakeFirstOrThrow();
        if (mediaUuids.length) {
          await trx
            .insertInto('lightbox_medias')
            .values(mediaUuids.map((u, i) => ({ lightbox_id: lb.id, media_id: medias.find((m) => m.uuid === u)!.id, position: i + 1 })))
            .execute();
        }
      });
      return { json: { uuid }, text: `lightbox created (${uuid})` };
    },
  },
};

function usage(): string {
  return `usage: admin <command> [options] [--json]\ncommands:\n${Object.keys(commands)
    .map((c) => `  ${c} ${Object.keys(commands[c].options).map((k) => `--${k}`).join(' ')}`)
    .join('\n')}`;
}

export async function runAdmin(argv: string[]): Promise<number> {
  const name = argv.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) {
    process.stderr.write(argv.length ? `unknown command: ${name} (commands: ${Object.keys(commands).join(', ')})\n` : `no command given\n${usage()}\n`);
    return 2;
  }
  let values: Opts;
  try {
    values = parseArgs({ args: argv.slice(2), options: { ...command.options, json: { type: 'boolean' } }, strict: true, allowPositionals: false }).values as Opts;
  } catch (err) {
    process.stderr.write(`${(err as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  const config = loadConfig();
  const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    await migrate(store);
    const result = await command.run(store.db, values, config);
    process.stdout.write(values.json ? JSON.stringify(result.json) + '\n' : result.text + '\n');
    return 0;
  } catch (err) {
    const msg = err instanceof UsageError ? err.message : `error: ${(err as Error).message}`;
    process.stderr.write(msg.split('\n')[0] + '\n');
    return 1;
  } finally {
    await store.close();
  }
}

process.exitCode = await runAdmin(process.argv.slice(2));
