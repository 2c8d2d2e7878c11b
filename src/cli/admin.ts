// The admin command line of operations.md: `npm run --silent admin -- <command>`.
// Works while the server runs (same DATA_DIR / DATABASE_URL). With --json it
// prints one JSON object on stdout; a bad argument exits 1 with one line on stderr.
// Commands check their arguments and call the services (src/app.ts buildCore).
import { parseArgs } from 'node:util';
import { buildCore, type Core } from '../app.js';
import { loadConfig } from '../config.js';
import { quietWhenReaderGone } from './closed-output.js';
import { ApiError } from '../http/errors.js';
import { isValidBase32Secret } from '../http/totp.js';
import type { UserRow } from '../store/schema.js';
import { isValidHostname, isValidUrlname } from '../websites/input.js';

class UsageError extends Error {}

type Opts = Record<string, string | boolean | string[] | undefined>;
type Result = { json: Record<string, unknown>; text: string };

interface Command {
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  run(core: Core, o: Opts): Promise<Result>;
}

const str = (o: Opts, name: string, required = true): string | undefined => {
  const v = o[name];
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
};

async function userNamed(core: Core, email: string): Promise<UserRow> {
  const user = await core.users.byEmail(email);
  if (!user) throw new UsageError(`no user with e-mail ${email}`);
  return user;
}

const EMAIL = /^[^\s@"\\]+@[^\s@"\\]+\.[^\s@"\\]+$/;

const commands: Record<string, Command> = {
  'user create': {
    options: { email: { type: 'string' }, password: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' }, 'otp-secret': { type: 'string' } },
    async run(core, o) {
      const email = str(o, 'email')!.toLowerCase();
      if (!EMAIL.test(email)) throw new UsageError(`--email is not an e-mail address: ${email}`);
      const password = str(o, 'password')!;
      if (password.length < 8) throw new UsageError('--password must have at least 8 characters');
      const otp = str(o, 'otp-secret', false);
      if (otp && !isValidBase32Secret(otp)) throw new UsageError('--otp-secret must be a base32 secret of at least 80 bits');
      const { user } = await core.users.create({ email, password, firstName: str(o, 'first-name', false), lastName: str(o, 'last-name', false), otpSecret: otp });
      return { json: { uuid: user.uuid, email: user.email }, text: `user ${user.email} created (${user.uuid})` };
    },
  },
  'app create': {
    // --dotenv prints the lines the `api` command reads from .env.
    options: { name: { type: 'string' }, dotenv: { type: 'boolean' } },
    async run(core, o) {
      const name = str(o, 'name')!;
      const { key, secret } = await core.apps.create(name);
      if (o.dotenv) return { json: { key, secret }, text: `MPS_API_KEY=${key}\nMPS_API_SECRET=${secret}` };
      return { json: { key, secret }, text: `application ${name}\nkey:    ${key}\nsecret: ${secret}` };
    },
  },
  'website create': {
    options: { owner: { type: 'string' }, urlname: { type: 'string' }, title: { type: 'string' }, hostname: { type: 'string' } },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const urlname = str(o, 'urlname')!;
      if (!isValidUrlname(urlname)) throw new UsageError('--urlname must be lower-case letters, digits and dashes (at most 63)');
      const hostname = str(o, 'hostname', false);
      if (hostname && !isValidHostname(hostname)) throw new UsageError('--hostname must be a host name');
      const w = await core.websites.create(owner, { urlname, title: str(o, 'title', false), hostname });
      return { json: w, text: `website ${w.urlname} created (${w.uuid}), root gallery ${w.rootGalleryUuid}` };
    },
  },
  'website share': {
    options: { urlname: { type: 'string' }, user: { type: 'string' } },
    async run(core, o) {
      const urlname = str(o, 'urlname')!;
      const member = await userNamed(core, str(o, 'user')!);
      const website = await core.websites.share(urlname, member);
      return { json: website, text: `website ${urlname} shared` };
    },
  },
  'artist create': {
    options: { owner: { type: 'string' }, name: { type: 'string' } },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { uuid } = await core.artists.create(owner, str(o, 'name')!);
      return { json: { uuid }, text: `media library created (${uuid})` };
    },
  },
  'pricing-profile create': {
    options: { owner: { type: 'string' }, name: { type: 'string' } },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { uuid } = await core.pricingProfiles.create(owner, str(o, 'name')!);
      return { json: { uuid }, text: `pricing profile created (${uuid})` };
    },
  },
  'watermark create': {
    options: { artist: { type: 'string' }, text: { type: 'string' }, file: { type: 'string' }, default: { type: 'boolean' } },
    async run(core, o) {
      const artistUuid = str(o, 'artist')!;
      const text = str(o, 'text', false);
      const file = str(o, 'file', false);
      if ((text === undefined) === (file === undefined)) throw new UsageError('give exactly one of --text or --file');
      const isDefault = o.default === true;
      const { uuid } = await core.artists.createWatermark(file !== undefined ? { artistUuid, isDefault, file } : { artistUuid, isDefault, text: text! });
      return { json: { uuid }, text: `watermark created (${uuid})` };
    },
  },
  'client link': {
    // A visitor's sign-in link, for an operator to hand over (no mail is sent): docs/visitors.md.
    options: { website: { type: 'string' }, email: { type: 'string' }, back: { type: 'string' } },
    async run(core, o) {
      const link = await core.visitorLinks.createFor(str(o, 'website')!, str(o, 'email')!, str(o, 'back', false));
      return {
        json: { url: link.url, expiresAt: link.expiresAt.toISOString() },
        text: `${link.url}\n(works once, until ${link.expiresAt.toISOString()})`,
      };
    },
  },
  'lightbox create': {
    options: { owner: { type: 'string' }, name: { type: 'string' }, media: { type: 'string', multiple: true } },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { uuid } = await core.lightboxes.create(owner, str(o, 'name')!, (o.media as string[] | undefined) ?? []);
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
  let core: Core | undefined;
  try {
    core = await buildCore(loadConfig());
    const result = await command.run(core, values);
    process.stdout.write(values.json ? JSON.stringify(result.json) + '\n' : result.text + '\n');
    return 0;
  } catch (err) {
    // A refusal (unknown library, taken urlname…) is the operator's to fix: said plainly.
    const msg = err instanceof UsageError || err instanceof ApiError ? err.message : `error: ${(err as Error).message}`;
    process.stderr.write(msg.split('\n')[0] + '\n');
    return 1;
  } finally {
    await core?.close();
  }
}

quietWhenReaderGone(process.stdout, process.stderr);
process.exitCode = await runAdmin(process.argv.slice(2));
