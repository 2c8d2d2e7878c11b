// The admin command line of operations.md (`npm run --silent admin -- <command>`, `--help` for each),
// beside a running server on the same DATA_DIR / DATABASE_URL: each command reads its options through
// the field specs and calls the services (buildCore); --json prints one object, a bad argument exits 1
// with one line on stderr. The services load only once a command is known to run, so help and
// mistakes answer at once (docs/architecture.md, "One contract"; the README's admin table).
import { parseArgs } from 'node:util';
import type { Core } from '../app.js';
import { ApiError } from '../core/errors.js';
import { optionNames, readFields, type Naming, type Source, type Spec } from '../core/fields.js';
import type { UserRow } from '../database/schema.js';
import { quietWhenReaderGone } from './closed-output.js';
import { isValidHostname, isValidUrlname } from '../websites/input.js';

class UsageError extends Error {}

type Opts = Record<string, string | boolean | string[] | undefined>;
type Result = { json: Record<string, unknown>; text: string };

interface Option {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** The value's placeholder in the help (string options). */
  value?: string;
  required?: boolean;
  help: string;
}

interface Command {
  /** One line for the list of commands. */
  summary: string;
  /** What it prints with --json. */
  prints: string;
  options: Record<string, Option>;
  run(core: Core, o: Opts): Promise<Result>;
}

const str = (o: Opts, name: string, required = true): string | undefined => {
  const v = o[name];
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
};

/** The command's options as a field spec's source: each key read from the option `options` names (`--url-path`). */
function optionSource(o: Opts, options: Naming): Source {
  const at = (key: string) => o[options(key).slice(2)];
  return {
    value: (key) => {
      const v = at(key);
      // A boolean option is a flag given (1); absent, it is not sent.
      return typeof v === 'string' ? v : Array.isArray(v) ? v[v.length - 1] : v === true ? '1' : undefined;
    },
    values: (key) => {
      const v = at(key);
      return typeof v === 'string' ? [v] : Array.isArray(v) ? v : undefined;
    },
  };
}

/**
 * Reads an operation's input from the options (refusals worded with `naming`: the options by
 * default), and names the option of any refusal that carries its field (err.field), the
 * service's own included, unless the message names it already.
 */
async function withOptions<S extends Spec, T>(spec: S, o: Opts, options: Naming, work: (source: Source) => Promise<T> | T): Promise<T> {
  try {
    return await work(optionSource(o, options));
  } catch (err) {
    if (err instanceof ApiError && err.field !== undefined && err.field in spec) {
      const option = options(err.field);
      if (!err.message.startsWith(option)) throw new UsageError(`${option}: ${err.message}`);
    }
    throw err;
  }
}

async function userNamed(core: Core, email: string): Promise<UserRow> {
  const user = await core.users.byEmail(email);
  if (!user) throw new UsageError(`no user with e-mail ${email}`);
  return user;
}

/** A value in single quotes, as both a POSIX shell and a .env reader take it (key and secret are hex: no quote inside). */
function shellQuoted(value: string): string {
  if (value.includes("'")) throw new Error('a value with a single quote cannot be written to .env');
  return `'${value}'`;
}

const EMAIL = /^[^\s@"\\]+@[^\s@"\\]+\.[^\s@"\\]+$/;

const commands: Record<string, Command> = {
  'user create': {
    summary: 'a user account, with its default media library',
    prints: '{"uuid","email"}',
    options: {
      email: { type: 'string', value: 'E', required: true, help: 'the login (stored in lower case)' },
      password: { type: 'string', value: 'P', required: true, help: 'at least 8 characters (stored as an argon2id hash)' },
      'first-name': { type: 'string', value: 'F', help: 'first name' },
      'last-name': { type: 'string', value: 'L', help: 'last name' },
      'otp-secret': { type: 'string', value: 'BASE32', help: 'turns on two-factor authentication (TOTP, RFC 6238: 30 s steps, 6 digits, SHA-1)' },
    },
    async run(core, o) {
      const email = str(o, 'email')!.toLowerCase();
      if (!EMAIL.test(email)) throw new UsageError(`--email is not an e-mail address: ${email}`);
      const password = str(o, 'password')!;
      if (password.length < 8) throw new UsageError('--password must have at least 8 characters');
      const otp = str(o, 'otp-secret', false);
      if (otp && !(await import('../users/totp.js')).isValidBase32Secret(otp)) throw new UsageError('--otp-secret must be a base32 secret of at least 80 bits');
      const { user } = await core.users.create({ email, password, firstName: str(o, 'first-name', false), lastName: str(o, 'last-name', false), otpSecret: otp });
      return { json: { uuid: user.uuid, email: user.email }, text: `user ${user.email} created (${user.uuid})` };
    },
  },
  // The operators' role (the studio's administration, docs/studio.md): an extension.
  'user grant-admin': {
    summary: "gives a user the operators' role: the studio's administration (accounts, applications, the job queue)",
    prints: '{"uuid","email","admin"}',
    options: { email: { type: 'string', value: 'E', required: true, help: 'the user' } },
    async run(core, o) {
      const user = await core.users.setAdmin(str(o, 'email')!, true);
      return { json: { uuid: user.uuid, email: user.email, admin: true }, text: `${user.email} is an operator now` };
    },
  },
  'user revoke-admin': {
    summary: "takes the operators' role back from a user",
    prints: '{"uuid","email","admin"}',
    options: { email: { type: 'string', value: 'E', required: true, help: 'the user' } },
    async run(core, o) {
      const user = await core.users.setAdmin(str(o, 'email')!, false);
      return { json: { uuid: user.uuid, email: user.email, admin: false }, text: `${user.email} is no operator any more` };
    },
  },
  // Storage quotas (docs/security.md, Storage quota): an extension.
  'user quota': {
    summary: "sets a user's storage quota (stored originals plus open uploads), or gives them the service's default (STORAGE_QUOTA_BYTES) again",
    prints: '{"uuid","email","quotaBytes"}',
    options: {
      email: { type: 'string', value: 'E', required: true, help: 'the user' },
      bytes: { type: 'string', value: 'N', help: 'the quota in bytes (0: no new files)' },
      default: { type: 'boolean', help: "the service's default again" },
    },
    async run(core, o) {
      const raw = str(o, 'bytes', false);
      if ((raw === undefined) === !o.default) throw new UsageError('give either --bytes N or --default');
      const bytes = raw === undefined ? null : Number(raw);
      if (bytes !== null && (!/^[0-9]+$/.test(raw!) || !Number.isSafeInteger(bytes))) throw new UsageError('--bytes must be a whole number of bytes');
      const user = await core.users.setQuota(str(o, 'email')!, bytes);
      return {
        json: { uuid: user.uuid, email: user.email, quotaBytes: bytes },
        text: bytes === null ? `${user.email} has the service's default storage quota again` : `${user.email} may store ${bytes} bytes`,
      };
    },
  },
  // The operators' switch on a photographer's mail (docs/delivery.md "Invitations"): an extension.
  'user mail': {
    summary: "stops (--off) or lets go (--on) the mail the service sends on a user's behalf: their invitations",
    prints: '{"uuid","email","mail"}',
    options: {
      email: { type: 'string', value: 'E', required: true, help: 'the user' },
      off: { type: 'boolean', help: 'stop it: their invitations are refused (403), nothing is sent' },
      on: { type: 'boolean', help: 'let it go again' },
    },
    async run(core, o) {
      if ((o.off === true) === (o.on === true)) throw new UsageError('give one of --off and --on');
      const user = await core.users.setMailStopped({ email: str(o, 'email')! }, o.off === true);
      const mail = user.mail_stopped_at === null;
      return { json: { uuid: user.uuid, email: user.email, mail }, text: mail ? `${user.email}'s mail goes out` : `${user.email}'s mail is stopped` };
    },
  },
  'app revoke': {
    summary: 'revokes an application: its key signs nothing any more (within a minute in every process)',
    prints: '{"key","revoked"}',
    options: { key: { type: 'string', value: 'K', required: true, help: "the application's API key" } },
    async run(core, o) {
      const key = str(o, 'key')!;
      await core.apps.revoke({ operator: true }, key);
      return { json: { key, revoked: true }, text: `application ${key} revoked` };
    },
  },
  'app create': {
    summary: 'an application: the key and secret that sign API requests',
    prints: '{"key","secret"}',
    options: {
      name: { type: 'string', value: 'N', required: true, help: 'what the application is' },
      dotenv: { type: 'boolean', help: "print MPS_API_KEY='…' and MPS_API_SECRET='…' lines, as the api command reads them from .env (valid shell too)" },
    },
    async run(core, o) {
      const name = str(o, 'name')!;
      const { key, secret } = await core.apps.create(name);
      // Single-quoted: the lines stay valid for `set -a; . ./.env` as well as for the .env readers.
      if (o.dotenv) return { json: { key, secret }, text: `MPS_API_KEY=${shellQuoted(key)}\nMPS_API_SECRET=${shellQuoted(secret)}` };
      return { json: { key, secret }, text: `application ${name}\nkey:    ${key}\nsecret: ${secret}` };
    },
  },
  'website create': {
    summary: 'a website, with its root gallery and display styles',
    prints: '{"uuid","urlname","rootGalleryUuid"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the user who owns it' },
      urlname: { type: 'string', value: 'U', required: true, help: 'lower-case letters, digits and dashes (at most 63): /sites/U/' },
      title: { type: 'string', value: 'T', help: 'the title' },
      hostname: { type: 'string', value: 'H', help: "the website's own host name, in effect at once: no DNS proof asked" },
    },
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
    summary: 'gives another user access to a website',
    prints: '{"uuid","urlname"}',
    options: {
      urlname: { type: 'string', value: 'U', required: true, help: 'the website' },
      user: { type: 'string', value: 'EMAIL', required: true, help: 'the user who gets access' },
    },
    async run(core, o) {
      const urlname = str(o, 'urlname')!;
      const member = await userNamed(core, str(o, 'user')!);
      const website = await core.websites.share(urlname, member);
      return { json: website, text: `website ${urlname} shared` };
    },
  },
  // The brand and pages of a website: an API extension (docs/website.md "Brand and pages").
  'website set': {
    summary: "a website's brand: title, tagline, logo, favicon, colours, theme, footer, contact (an extension)",
    prints: '{"urlname","title","theme","colorScheme","accentColor","hostname","updatedAt"}',
    options: {
      urlname: { type: 'string', value: 'U', required: true, help: 'the website' },
      title: { type: 'string', value: 'T', help: "the website's name, in its header" },
      tagline: { type: 'string', value: 'T', help: 'a line under the name ("" clears it)' },
      logo: { type: 'string', value: 'UUID', help: 'an image media of the owner\'s libraries, shown 48 px high in the header ("" clears it)' },
      favicon: { type: 'string', value: 'UUID', help: 'an image media of the owner\'s libraries, the browser tab\'s icon ("" clears it)' },
      'color-scheme': { type: 'string', value: 'light|dark|auto', help: "light, dark, or the visitor's setting" },
      'accent-color': { type: 'string', value: '#RRGGBB', help: 'links, buttons, the current page in the navigation ("" for the default)' },
      theme: { type: 'string', value: 'modern|editorial|classic|system', help: 'the typographic theme' },
      credit: { type: 'string', value: 'TEXT', help: 'a credit line in the footer ("" clears it)' },
      copyright: { type: 'string', value: 'TEXT', help: 'the copyright line in the footer (default "© YEAR TITLE"; "" for the default)' },
      'contact-email': { type: 'string', value: 'E', help: 'an e-mail address in the footer ("" clears it)' },
      'social-link': { type: 'string', value: 'URL', multiple: true, help: 'an http(s) address in the footer, repeat for more (at most 8); --social-link "" clears them' },
      hostname: { type: 'string', value: 'H', help: 'the website\'s own host name, in effect at once: no DNS proof asked ("" clears it)' },
    },
    async run(core, o) {
      const { BRAND_API, BRAND_FIELDS } = await import('../websites/brand.js');
      const options = optionNames(BRAND_FIELDS, { socialLinks: 'social-link' });
      // Worded as the API words them (website[title]…), with the option in front.
      const d = await withOptions(BRAND_FIELDS, o, options, (source) =>
        core.websites.setBrand({ operator: true }, str(o, 'urlname')!, readFields(BRAND_FIELDS, source, BRAND_API)),
      );
      const w = d.website;
      return {
        json: { urlname: w.urlname, title: w.title, theme: w.theme, colorScheme: w.color_scheme, accentColor: w.accent_color, hostname: w.hostname, updatedAt: w.updated_at },
        text: `website ${w.urlname} updated: "${w.title}", theme ${w.theme}, ${w.color_scheme}${w.accent_color ? `, accent ${w.accent_color}` : ''}`,
      };
    },
  },
  'website show': {
    summary: "a website's brand and pages (an extension)",
    prints: 'the website with its brand and pages',
    options: { urlname: { type: 'string', value: 'U', required: true, help: 'the website' } },
    async run(core, o) {
      const d = await core.websites.details({ operator: true }, str(o, 'urlname')!);
      const { id: _id, owner_id: _owner, ...w } = d.website;
      const json = { ...w, logo: d.logoUuid, favicon: d.faviconUuid, rootGalleryUuid: d.rootGalleryUuid, pages: d.pages.map((p) => ({ slug: p.slug, title: p.title, position: p.position })) };
      return { json, text: JSON.stringify(json, null, 2) };
    },
  },
  'website page': {
    summary: 'writes or deletes a Markdown page of a website\'s navigation (About, Contact…; an extension)',
    prints: '{"slug","title","position","created"} or {"slug","deleted"}',
    options: {
      urlname: { type: 'string', value: 'U', required: true, help: 'the website' },
      slug: { type: 'string', value: 'S', required: true, help: 'its address below the home: /p/S (lower-case letters, digits, dashes)' },
      title: { type: 'string', value: 'T', help: 'its title, in the navigation (required for a new page)' },
      body: { type: 'string', value: 'MARKDOWN', help: 'its text' },
      file: { type: 'string', value: 'PATH', help: 'its text, read from a Markdown file' },
      position: { type: 'string', value: 'N', help: 'its place in the navigation (0 to 1000, then by slug)' },
      delete: { type: 'boolean', help: 'deletes the page' },
    },
    async run(core, o) {
      const urlname = str(o, 'urlname')!;
      const slug = str(o, 'slug')!;
      if (o.delete) {
        await core.websites.deletePage({ operator: true }, urlname, slug);
        return { json: { slug, deleted: true }, text: `page ${slug} deleted` };
      }
      if (typeof o.body === 'string' && typeof o.file === 'string') throw new UsageError('give --body or --file, not both');
      const { PAGE_API, PAGE_FIELDS } = await import('../websites/brand.js');
      let body = typeof o.body === 'string' ? o.body : undefined;
      if (typeof o.file === 'string') {
        const { readFile } = await import('node:fs/promises');
        body = await readFile(o.file, 'utf8').catch(() => {
          throw new UsageError(`cannot read --file ${o.file}`);
        });
      }
      const options = optionNames(PAGE_FIELDS);
      const { page, created } = await withOptions(PAGE_FIELDS, { ...o, body }, options, (source) =>
        core.websites.putPage({ operator: true }, urlname, slug, readFields(PAGE_FIELDS, source, PAGE_API)),
      );
      return { json: { slug: page.slug, title: page.title, position: page.position, created }, text: `page ${page.slug} ${created ? 'created' : 'updated'}: ${page.title}` };
    },
  },
  'artist create': {
    summary: 'a media library',
    prints: '{"uuid"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the user who owns it' },
      name: { type: 'string', value: 'N', required: true, help: 'its name' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { uuid } = await core.artists.create(owner, str(o, 'name')!);
      return { json: { uuid }, text: `media library created (${uuid})` };
    },
  },
  'display-style set': {
    summary: "what a website's display style chooses besides its layout (an extension): cropping, spacing, captions",
    prints: '{"urlname","style"}',
    options: {
      urlname: { type: 'string', value: 'U', required: true, help: 'the website' },
      style: { type: 'string', value: 'S', required: true, help: 'the display style, by name (Grid, Masonry…) or UUID' },
      crop: { type: 'string', value: 'yes|no', help: 'yes: a grid crops its photos to square cells; no (the default): justified rows, every photo whole' },
      spacing: { type: 'string', value: 'none|tight|normal|wide', help: 'the space between photos (normal by default)' },
      captions: { type: 'string', value: 'yes|no', help: 'titles under the photos (no by default)' },
    },
    async run(core, o) {
      // The one declaration of a style's values (the studio's too), worded with the options.
      const { DISPLAY_STYLE_FIELDS } = await import('../websites/display-style-input.js');
      const options = optionNames(DISPLAY_STYLE_FIELDS);
      // --style names the style, not its new name: only what this command offers is read.
      const values = await withOptions(DISPLAY_STYLE_FIELDS, { crop: o.crop, spacing: o.spacing, captions: o.captions }, options, (source) =>
        readFields(DISPLAY_STYLE_FIELDS, source, options),
      );
      const urlname = str(o, 'urlname')!;
      const style = str(o, 'style')!;
      await core.websites.setDisplayStyle(urlname, style, values);
      return { json: { urlname, style }, text: `display style ${style} of ${urlname} changed` };
    },
  },
  'pricing-profile create': {
    summary: 'a pricing profile',
    prints: '{"uuid"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the user who owns it' },
      name: { type: 'string', value: 'N', required: true, help: 'its name' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      // The name read by the price list's spec (the API's and the studio's): blank, too long or with control characters is refused.
      const { PRICING_PROFILE_FIELDS } = await import('../pricing-profiles/fields.js');
      const options = optionNames(PRICING_PROFILE_FIELDS);
      const { name } = await withOptions(PRICING_PROFILE_FIELDS, { name: o.name }, options, (source) => readFields({ name: PRICING_PROFILE_FIELDS.name }, source, options));
      const { uuid } = await core.pricingProfiles.create(owner, name!);
      return { json: { uuid }, text: `pricing profile created (${uuid})` };
    },
  },
  'payments stripe': {
    summary: "stores a photographer's Stripe keys, encrypted (docs/shop.md, Card payments)",
    prints: '{"webhookUrl"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer' },
      'secret-key': { type: 'string', value: 'SK', required: true, help: 'their Stripe secret key (sk_… or rk_…); never printed' },
      'webhook-secret': { type: 'string', value: 'WHSEC', required: true, help: "the webhook's signing secret (whsec_…); never printed" },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { webhookUrl } = await core.stripe.configure(owner, { secretKey: str(o, 'secret-key')!, webhookSecret: str(o, 'webhook-secret')! });
      return { json: { webhookUrl }, text: `Stripe keys stored; give Stripe this webhook address: ${webhookUrl}` };
    },
  },
  'orders export': {
    summary: "a photographer's orders as the two accounting CSV files (docs/shop.md, Exports)",
    prints: '{"orders","files"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer' },
      out: { type: 'string', value: 'FOLDER', required: true, help: 'an existing folder to write orders_Report_<date>.csv and orders_items_<date>.csv into' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const [{ writeFile }, { join, resolve }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
      const out = resolve(str(o, 'out')!);
      const e = await core.orders.export(owner);
      const files = [join(out, e.reportName), join(out, e.itemsName)];
      await writeFile(files[0], e.report, { mode: 0o600 }).catch((err: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot write into --out ${out}: ${err.code ?? err.message}`);
      });
      await writeFile(files[1], e.items, { mode: 0o600 });
      return { json: { orders: e.orders, files }, text: `${e.orders} orders written to ${files.join(' and ')}` };
    },
  },
  'watermark create': {
    summary: "a watermark of a media library: a text or an image file",
    prints: '{"uuid"}',
    options: {
      artist: { type: 'string', value: 'UUID', required: true, help: 'the media library' },
      text: { type: 'string', value: 'T', help: 'the text (give --text or --file)' },
      file: { type: 'string', value: 'PATH', help: 'an image, copied into DATA_DIR (give --text or --file)' },
      default: { type: 'boolean', help: "make it the library's default (the previous default stops being one)" },
      strength: { type: 'string', value: '0-100', help: 'its opacity in percent (50 by default)' },
      position: { type: 'string', value: 'P', help: 'center (the default), top-left, top, top-right, left, right, bottom-left, bottom or bottom-right' },
      tile: { type: 'string', value: 'yes|no', help: 'yes: repeated over the whole picture, whatever the position (no by default)' },
    },
    async run(core, o) {
      const artistUuid = str(o, 'artist')!;
      const text = str(o, 'text', false);
      const file = str(o, 'file', false);
      if ((text === undefined) === (file === undefined)) throw new UsageError('give exactly one of --text or --file');
      const isDefault = o.default === true;
      // The one declaration of a watermark's look (the studio's too), worded with the options.
      const { WATERMARK_LOOK_FIELDS } = await import('../artists/watermark-input.js');
      const options = optionNames(WATERMARK_LOOK_FIELDS);
      const look = await withOptions(WATERMARK_LOOK_FIELDS, o, options, (source) => readFields(WATERMARK_LOOK_FIELDS, source, options));
      const { uuid } = await core.artists.createWatermark(file !== undefined ? { artistUuid, isDefault, look, file } : { artistUuid, isDefault, look, text: text! });
      return { json: { uuid }, text: `watermark created (${uuid})` };
    },
  },
  'client link': {
    // A visitor's sign-in link, for an operator to hand over (no mail is sent): docs/visitors.md.
    summary: "a visitor's one-time sign-in link (no mail is sent)",
    prints: '{"url","expiresAt"}',
    options: {
      website: { type: 'string', value: 'UUID|URLNAME', required: true, help: 'the website' },
      email: { type: 'string', value: 'E', required: true, help: "the visitor's address, as on the access lists" },
      back: { type: 'string', value: 'PATH', help: "a path under the website's home to land on" },
    },
    async run(core, o) {
      const link = await core.visitorLinks.createFor(str(o, 'website')!, str(o, 'email')!, str(o, 'back', false));
      return {
        json: { url: link.url, expiresAt: link.expiresAt.toISOString() },
        text: `${link.url}\n(works once, until ${link.expiresAt.toISOString()})`,
      };
    },
  },
  'activity list': {
    // What clients did (docs/delivery.md "Activity"): a gallery's, or one client's across the owner's galleries.
    summary: "what clients did in an owner's galleries: views, downloads, selections, invitations",
    prints: '{"total","events":[{"kind","gallery","client","verified","media","bytes","at"}],"clients"?,"anonymous"?}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: "the photographer's login" },
      gallery: { type: 'string', value: 'UUID', help: "one gallery's events, its clients' summary and its anonymous counts" },
      client: { type: 'string', value: 'EMAIL', help: "one client's events (across the owner's galleries without --gallery)" },
      page: { type: 'string', value: 'N', help: 'the page of 100 events (default 1)' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const gallery = str(o, 'gallery', false);
      const client = str(o, 'client', false);
      if (!gallery && !client) throw new UsageError('give --gallery, --client or both');
      const pageText = str(o, 'page', false) ?? '1';
      if (!/^[1-9]\d{0,5}$/.test(pageText)) throw new UsageError('--page must be a whole number from 1');
      const opts = { page: Number(pageText), perPage: 100 };
      const r = gallery ? await core.activity.gallery(owner, gallery, { client, ...opts }) : await core.activity.client(owner, client, opts);
      const events = r.events.map((e) => ({ kind: e.kind, gallery: e.gallery_uuid, client: e.client_email, verified: e.client_verified, media: e.media_uuid, bytes: e.bytes, at: e.at }));
      const extra = 'clients' in r ? { clients: r.clients, anonymous: r.anonymous } : {};
      const lines = events.map((e) => [e.at, e.kind, e.client, e.gallery, e.media ?? '', e.bytes ?? ''].join('\t'));
      if ('anonymous' in r) lines.push(...r.anonymous.map((d) => [d.day, `${d.kind} (anonymous)`, `${d.count}`, `${d.bytes} bytes`].join('\t')));
      return { json: { total: r.total, page: r.page, events, ...extra }, text: lines.length ? lines.join('\n') : 'no activity' };
    },
  },
  'activity delete': {
    // A client's data on request (docs/delivery.md "Activity").
    summary: "deletes what an owner's websites keep about a client: activity and sign-in links",
    prints: '{"client","deleted":{"events","signin_links"}}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: "the photographer's login" },
      client: { type: 'string', value: 'EMAIL', required: true, help: "the client's address" },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const r = await core.activity.forget(owner, str(o, 'client')!);
      return { json: r, text: `deleted for ${r.client}: ${Object.entries(r.deleted).map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`).join(', ')}` };
    },
  },
  'client invite': {
    // An invitation, as the API's POST /galleries/<uuid>/invitations.xml (docs/delivery.md "Invitations").
    summary: 'mails a client a sign-in link to a gallery (its access-list entry made when missing)',
    prints: '{"email","gallery","entryCreated","expiresAt"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: "the photographer's login" },
      gallery: { type: 'string', value: 'UUID', required: true, help: 'the gallery' },
      email: { type: 'string', value: 'E', required: true, help: "the client's address" },
      message: { type: 'string', value: 'TEXT', help: 'your words, above the link (plain text, at most 2000 characters)' },
      'comp-download': { type: 'boolean', help: 'a new entry may download comps' },
      'hires-download': { type: 'boolean', help: 'a new entry may download originals' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      str(o, 'email'); // required: a usage error before the mailer loads
      const [{ loadConfig }, { createMailer }, { INVITATION_API, INVITATION_FIELDS }, { buildInvitations }, { pino }] = await Promise.all([
        import('../config.js'),
        import('../mail/mailer.js'),
        import('../invitations/service.js'),
        import('../app.js'),
        import('pino'),
      ]);
      const config = loadConfig();
      // stdout is the answer: the mailer's log lines (and, without SMTP_URL, the link) go to stderr.
      const log = pino({ level: 'info' }, pino.destination(2));
      const mailer = createMailer(config.visitors, log);
      // The service's own builder: the same brand and delivery state as the API's and the studio's.
      const invitations = buildInvitations(core, mailer, log, { ttlSeconds: config.visitors.invitationTtlSeconds });
      try {
        // The API's invitation, read from the options; the service's refusals name their option.
        const options = optionNames(INVITATION_FIELDS, { comp: 'comp-download', hires: 'hires-download' });
        const r = await withOptions(INVITATION_FIELDS, o, options, (source) =>
          invitations.invite(owner, str(o, 'gallery')!, readFields(INVITATION_FIELDS, source, INVITATION_API)),
        );
        return {
          json: { email: r.email, gallery: r.galleryUuid, entryCreated: r.entryCreated, expiresAt: r.expiresAt.toISOString() },
          text: `invitation to ${r.email} sent${r.entryCreated ? ' (access-list entry added)' : ''}; the link works once, until ${r.expiresAt.toISOString()}`,
        };
      } finally {
        await mailer.close();
        await invitations.idle();
      }
    },
  },
  'lightbox create': {
    summary: 'a lightbox: a named selection of medias',
    prints: '{"uuid"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the user who owns it' },
      name: { type: 'string', value: 'N', required: true, help: 'its name' },
      media: { type: 'string', value: 'UUID', multiple: true, help: 'a media to put in it (repeat for more)' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { uuid } = await core.lightboxes.create(owner, str(o, 'name')!, (o.media as string[] | undefined) ?? []);
      return { json: { uuid }, text: `lightbox created (${uuid})` };
    },
  },
  'lightbox list': {
    summary: "a user's lightboxes, clients' selections (favourites) among them (docs/delivery.md)",
    prints: '{"lightboxes":[{"uuid","name","count","state","gallery","client","verified"}]}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the user who owns them' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { rows } = await core.lightboxes.list(owner, 1000, 0);
      const json = rows.map((l) => ({
        uuid: l.uuid,
        name: l.name,
        count: l.count,
        state: l.state,
        gallery: l.gallery_uuid,
        client: l.client_email,
        verified: l.client_email === null ? null : l.client_verified === 1,
      }));
      const line = (l: (typeof json)[number]) =>
        `${l.uuid}  ${l.state.padEnd(4)}  ${String(l.count).padStart(5)}  ${l.name}${l.client && !l.verified ? ' (address not verified)' : ''}`;
      return { json: { lightboxes: json }, text: json.length ? json.map(line).join('\n') : 'no lightboxes' };
    },
  },
  // Signed webhooks (docs/integrations.md "Webhooks"): an extension.
  'webhook create': {
    summary: "a photographer's webhook endpoint; prints its signing secret, shown this once (docs/integrations.md)",
    prints: '{"uuid","secret"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer whose events it gets' },
      url: { type: 'string', value: 'URL', required: true, help: 'where events are POSTed (http or https; public addresses only unless WEBHOOKS_ALLOW_PRIVATE=1)' },
      events: { type: 'string', value: 'LIST', required: true, help: 'comma list of event types (media.ready, order.paid, …) or * for all' },
      description: { type: 'string', value: 'TEXT', help: 'a note for the photographer' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { WEBHOOK_FIELDS } = await import('../webhooks/fields.js');
      const options = optionNames(WEBHOOK_FIELDS);
      const { endpoint, secret } = await withOptions(WEBHOOK_FIELDS, o, options, (source) => core.webhooks.create(owner, readFields(WEBHOOK_FIELDS, source, options, 'create')));
      return { json: { uuid: endpoint.uuid, secret }, text: `webhook ${endpoint.uuid} created for ${endpoint.events.join(',')}\nsecret (shown once): ${secret}` };
    },
  },
  'webhook list': {
    summary: "a photographer's webhook endpoints",
    prints: '{"webhooks":[{"uuid","url","events","enabled","failingSince","disabledAt"}]}',
    options: { owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer' } },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { endpoints } = await core.webhooks.list(owner, 100, 0);
      const json = endpoints.map((e) => ({ uuid: e.uuid, url: e.url, events: e.events, enabled: e.enabled, failingSince: e.failingSince, disabledAt: e.disabledAt }));
      const line = (e: (typeof json)[number]) => `${e.uuid}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.events.join(',')}  ${e.url}`;
      return { json: { webhooks: json }, text: json.length ? json.map(line).join('\n') : 'no webhook endpoints' };
    },
  },
  'webhook set': {
    summary: 'changes a webhook endpoint: address, events, enabled again after it was disabled',
    prints: '{"uuid","url","events","enabled"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer' },
      uuid: { type: 'string', value: 'UUID', required: true, help: 'the endpoint' },
      url: { type: 'string', value: 'URL', help: 'a new address' },
      events: { type: 'string', value: 'LIST', help: 'a new comma list of event types, or *' },
      description: { type: 'string', value: 'TEXT', help: 'a note ("" clears it)' },
      enabled: { type: 'string', value: 'yes|no', help: 'yes: enabled again (its failures so far forgotten); no: disabled' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { WEBHOOK_FIELDS } = await import('../webhooks/fields.js');
      const options = optionNames(WEBHOOK_FIELDS);
      const e = await withOptions(WEBHOOK_FIELDS, o, options, (source) => core.webhooks.update(owner, str(o, 'uuid')!, readFields(WEBHOOK_FIELDS, source, options, 'update')));
      return { json: { uuid: e.uuid, url: e.url, events: e.events, enabled: e.enabled }, text: `webhook ${e.uuid} ${e.enabled ? 'enabled' : 'disabled'}: ${e.events.join(',')} to ${e.url}` };
    },
  },
  'webhook delete': {
    summary: 'deletes a webhook endpoint with its delivery log',
    prints: '{"uuid"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer' },
      uuid: { type: 'string', value: 'UUID', required: true, help: 'the endpoint' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const e = await core.webhooks.delete(owner, str(o, 'uuid')!);
      return { json: { uuid: e.uuid }, text: `webhook ${e.uuid} deleted` };
    },
  },
  'webhook deliveries': {
    summary: "a webhook endpoint's delivery log, newest first, each delivery with its attempts",
    prints: '{"deliveries":[{"uuid","eventId","eventType","state","attempts":[…]}]}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer' },
      uuid: { type: 'string', value: 'UUID', required: true, help: 'the endpoint' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const { deliveries } = await core.webhooks.deliveries(owner, str(o, 'uuid')!, 100, 0);
      const line = (d: (typeof deliveries)[number]) => {
        const last = d.attempts[d.attempts.length - 1];
        return `${d.uuid}  ${d.state.padEnd(9)}  ${d.eventType.padEnd(18)}  ${d.attempts.length} attempt(s)${last ? `, last ${last.status_code ?? '-'} ${last.error ?? ''}`.trimEnd() : ''}`;
      };
      return { json: { deliveries }, text: deliveries.length ? deliveries.map(line).join('\n') : 'no deliveries' };
    },
  },
  'webhook replay': {
    summary: "sends a delivery's event again (the same webhook-id), at once",
    prints: '{"uuid","eventId","state"}',
    options: {
      owner: { type: 'string', value: 'EMAIL', required: true, help: 'the photographer' },
      uuid: { type: 'string', value: 'UUID', required: true, help: 'the endpoint' },
      delivery: { type: 'string', value: 'UUID', required: true, help: 'the delivery to send again' },
    },
    async run(core, o) {
      const owner = await userNamed(core, str(o, 'owner')!);
      const d = await core.webhooks.replay(owner, str(o, 'uuid')!, str(o, 'delivery')!);
      return { json: { uuid: d.uuid, eventId: d.eventId, state: d.state }, text: `delivery ${d.uuid} queued (event ${d.eventId})` };
    },
  },
};

const PROGRAM = 'npm run --silent admin --';

/** `--email E` for a string option, `--default` for a flag. */
function optionWord(name: string, o: Command['options'][string]): string {
  return o.type === 'string' ? `--${name} ${o.value ?? 'VALUE'}` : `--${name}`;
}

/** `--email E [--first-name F] [--media UUID]...` */
function synopsis(command: Command): string {
  return Object.entries(command.options)
    .map(([name, o]) => {
      const word = optionWord(name, o);
      return (o.required ? word : `[${word}]`) + (o.multiple ? '...' : '');
    })
    .join(' ');
}

function overview(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return [
    `usage: ${PROGRAM} <command> [options] [--json]`,
    '',
    'commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    `\`${PROGRAM} <command> --help\` describes a command and its options. They work while the server`,
    'runs, on the same DATA_DIR / DATABASE_URL (environment or ./.env). With --json a command prints one',
    'JSON object on stdout; a bad argument exits non-zero with one line on stderr.',
  ].join('\n');
}

function describeCommand(name: string, command: Command): string {
  const rows: Array<[string, string]> = Object.entries(command.options).map(([option, o]) => [
    optionWord(option, o),
    o.required ? `${o.help} (required)` : o.help,
  ]);
  rows.push(['--json', `print ${command.prints}`]);
  const width = Math.max(...rows.map(([left]) => left.length));
  return [`usage: ${PROGRAM} ${name} ${synopsis(command)} [--json]`, '', `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`, '', 'options:', ...rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`)].join('\n');
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET']);

/** The system's error code of an error or of what caused it (a failed migration wraps the connection's error). */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** A database URL fit to print: its password replaced. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(DATABASE_URL, not a URL)';
  }
}

const HELP = new Set(['--help', '-h', 'help']);

export async function runAdmin(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    process.stderr.write(`no command given\n${overview()}\n`);
    return 2;
  }
  if (HELP.has(argv[0])) {
    process.stdout.write(overview() + '\n');
    return 0;
  }
  const name = argv.slice(0, 2).join(' ');
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`unknown command: ${name} (\`${PROGRAM} --help\` lists the commands)\n`);
    return 2;
  }
  if (argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(describeCommand(name, command) + '\n');
    return 0;
  }
  let values: Opts;
  try {
    const options = Object.fromEntries(Object.entries(command.options).map(([k, o]) => [k, o.multiple ? { type: o.type, multiple: true } : { type: o.type }]));
    values = parseArgs({ args: argv.slice(2), options: { ...options, json: { type: 'boolean' } }, strict: true, allowPositionals: false }).values as Opts;
  } catch (err) {
    process.stderr.write(`${(err as Error).message.split('\n')[0]} (\`${PROGRAM} ${name} --help\`)\n`);
    return 2;
  }
  let core: Core | undefined;
  let databaseUrl: string | undefined;
  try {
    // Loaded only now: the services, the database drivers and what they bring.
    const [{ buildCore }, { loadConfig }] = await Promise.all([import('../app.js'), import('../config.js')]);
    // The same settings as `npm start` (environment over ./.env): the same DATA_DIR and DATABASE_URL.
    const config = loadConfig();
    databaseUrl = config.databaseUrl;
    core = await buildCore(config);
    const result = await command.run(core, values);
    process.stdout.write(values.json ? JSON.stringify(result.json) + '\n' : result.text + '\n');
    return 0;
  } catch (err) {
    // A refusal (unknown library, taken urlname…) is the operator's to fix: said plainly.
    const code = errorCode(err);
    const msg =
      err instanceof UsageError || err instanceof ApiError
        ? err.message
        : databaseUrl && typeof code === 'string' && UNREACHABLE.has(code)
          ? `error: cannot reach the database at ${withoutPassword(databaseUrl)} (${code}): is it running? (DATABASE_URL, from the environment or ./.env)`
          : `error: ${(err as Error).message}`;
    process.stderr.write(msg.split('\n')[0] + '\n');
    return 1;
  } finally {
    await core?.close();
  }
}

quietWhenReaderGone(process.stdout, process.stderr);
process.exitCode = await runAdmin(process.argv.slice(2));
