// The instance's administration, for operators only (users.is_admin; docs/studio.md): anyone
// else, signed in or not, gets the studio's 404 page before anything is read, the form's token
// included. Accounts through UsersService (disabling ends their sessions), applications through
// AppsService, the queue through JobQueue; and the invitation's own page (no session), where a
// new photographer sets their password once.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '../../core/uuid.js';
import { ApiError } from '../../core/errors.js';
import { INVITATION_DAYS } from '../../users/service.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { accountsPage, appsPage, jobQueuePage, welcomePage, type AccountItem, type AppItem } from '../pages/admin.js';
import { APP_NAME } from '../../apps/service.js';
import { USER_EMAIL } from '../../users/service.js';
import { accountInvitationMessage } from '../../mail/messages.js';

const ACCOUNTS_PER_PAGE = 100;
const APPS_SHOWN = 200;
const RUNNING_SHOWN = 50;

export const adminRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/admin', handler: adminHome },
  { method: 'GET', path: '/studio/admin/accounts', handler: accountsList },
  { method: 'POST', path: '/studio/admin/accounts', bodyLimit: SMALL_FORM_BYTES, handler: inviteAccount },
  { method: 'POST', path: '/studio/admin/accounts/:uuid/mail-off', bodyLimit: SMALL_FORM_BYTES, handler: (ctx, req, reply) => mail(true)(ctx, req, reply) },
  { method: 'POST', path: '/studio/admin/accounts/:uuid/mail-on', bodyLimit: SMALL_FORM_BYTES, handler: (ctx, req, reply) => mail(false)(ctx, req, reply) },
  { method: 'POST', path: '/studio/admin/accounts/:uuid/disable', bodyLimit: SMALL_FORM_BYTES, handler: (ctx, req, reply) => toggle(true)(ctx, req, reply) },
  { method: 'POST', path: '/studio/admin/accounts/:uuid/enable', bodyLimit: SMALL_FORM_BYTES, handler: (ctx, req, reply) => toggle(false)(ctx, req, reply) },
  { method: 'GET', path: '/studio/admin/apps', handler: appsList },
  { method: 'POST', path: '/studio/admin/apps', bodyLimit: SMALL_FORM_BYTES, handler: createApp },
  { method: 'POST', path: '/studio/admin/apps/:key/revoke', bodyLimit: SMALL_FORM_BYTES, handler: revokeApp },
  { method: 'GET', path: '/studio/admin/jobs', handler: jobQueue },
  { method: 'GET', path: '/studio/welcome/:token', handler: welcomeScreen },
  { method: 'POST', path: '/studio/welcome/:token', bodyLimit: SMALL_FORM_BYTES, handler: acceptWelcome },
];

/** An operator, else the same 404 page as an address that does not exist. */
async function needAdmin(ctx: StudioContext, req: FastifyRequest): Promise<Signed> {
  const s = ctx.signedInOf(req);
  const user = s ? await ctx.fresh(s) : undefined;
  if (!s || !user || user.is_admin !== 1 || user.disabled_at) throw new ApiError('not_found', 'There is no such page in the studio.');
  return s;
}
/** An operator's form post: the 404 first, then the form's own checks. */
async function adminPost(ctx: StudioContext, req: FastifyRequest) {
  const s = await needAdmin(ctx, req);
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, s.viewer.csrf);
  return { s, form };
}

// ---- accounts
async function accountsScreen(ctx: StudioContext, reply: FastifyReply, s: Signed, status: number, page: number, extra: Partial<Parameters<typeof accountsPage>[0]> = {}) {
  const found = await ctx.deps.users.accounts({ limit: ACCOUNTS_PER_PAGE, offset: (page - 1) * ACCOUNTS_PER_PAGE });
  const accounts: AccountItem[] = found.accounts.map((a) => ({
    uuid: a.uuid,
    email: a.email,
    name: [a.first_name, a.last_name].filter(Boolean).join(' '),
    admin: a.is_admin === 1,
    disabled: a.disabled_at !== null,
    mailStopped: a.mail_stopped_at !== null,
    medias: a.medias,
    bytes: a.bytes,
    createdAt: a.created_at,
  }));
  const pages = Math.max(1, Math.ceil(found.total / ACCOUNTS_PER_PAGE));
  return ctx.send(reply, status, accountsPage({ viewer: s.viewer, accounts, total: found.total, page, pages, ...extra }));
}
const toggle = (disabled: boolean) => async (ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) => {
  const { s } = await adminPost(ctx, req);
  const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such account.');
  if (uuid === s.user.uuid) throw new ApiError('invalid_parameter', 'You cannot disable your own account.');
  const user = await ctx.deps.users.setDisabled(uuid, disabled);
  // Signed out everywhere, the API's sessions included; the login is refused from now on (auth.ts).
  if (disabled) await ctx.deps.sessions.destroyAllOf(user.id);
  return ctx.redirect(reply, `/studio/admin/accounts?done=${disabled ? 'disabled' : 'enabled'}`);
};
// An operator's switch on the mail sent on the account's behalf (its invitations).
const mail = (stopped: boolean) => async (ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) => {
  await adminPost(ctx, req);
  const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such account.');
  await ctx.deps.users.setMailStopped({ uuid }, stopped);
  return ctx.redirect(reply, `/studio/admin/accounts?done=${stopped ? 'mail-off' : 'mail-on'}`);
};

// ---- applications: every one
async function appsScreen(ctx: StudioContext, reply: FastifyReply, s: Signed, status: number, extra: { notice?: string; error?: string; created?: { name: string; key: string; secret: string } } = {}) {
  const found = await ctx.deps.apps.list({ operator: true }, { limit: APPS_SHOWN, offset: 0 });
  const apps: AppItem[] = found.apps.map((a) => ({ name: a.name, key: a.api_key, owner: a.owner_email, ownerDisabled: a.owner_disabled_at !== null, createdAt: a.created_at, revoked: a.revoked_at !== null }));
  return ctx.send(reply, status, appsPage({ viewer: s.viewer, scope: 'admin', apps, total: found.total, ...extra }));
}

// ---- the invitation: a new photographer sets their password, once (no session yet)
const tokenOf = (req: FastifyRequest) => (req.params as { token: string }).token;
const welcomeForm = (ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, status: number, p: { email?: string; error?: { field: string; message: string }; gone?: boolean }) => {
  const csrf = ctx.cookies.read(req, ctx.cookies.signinToken) ?? ctx.tokens.fresh();
  reply.header('set-cookie', ctx.cookies.set(ctx.cookies.signinToken, csrf, 3600));
  return ctx.send(reply, status, welcomePage({ csrf, token: p.gone ? '' : tokenOf(req), ...p }));
};

async function adminHome(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  await needAdmin(ctx, req);
  return ctx.redirect(reply, '/studio/admin/accounts');
}

async function accountsList(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = await needAdmin(ctx, req);
  const q = req.query as { page?: string; done?: string; to?: string };
  const page = /^[1-9][0-9]{0,5}$/.test(q.page ?? '') ? Number(q.page) : 1;
  const notice = q.done === 'disabled' ? 'The account is disabled: its sessions have ended.' : q.done === 'enabled' ? 'The account is enabled again.' : q.done === 'invited' ? 'The account was created and the invitation mailed.' : q.done === 'mail-off' ? "The account's mail is stopped: its invitations are refused." : q.done === 'mail-on' ? "The account's mail goes out again." : undefined;
  return accountsScreen(ctx, reply, s, 200, page, { notice });
}

async function inviteAccount(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = await adminPost(ctx, req);
  const draft = { email: (form.str('email') ?? '').slice(0, 254), first_name: (form.str('first_name') ?? '').slice(0, 100), last_name: (form.str('last_name') ?? '').slice(0, 100) };
  let invited;
  try {
    invited = await ctx.deps.users.invite({ email: draft.email, firstName: draft.first_name, lastName: draft.last_name });
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 422 && err.status !== 409)) throw err;
    return accountsScreen(ctx, reply, s, err.status, 1, { error: { field: 'email', message: err.message.replace(USER_EMAIL, 'The address') }, draft });
  }
  const url = `${ctx.deps.config.publicUrl}/studio/welcome/${invited.token}`;
  ctx.deps.mailer.send(accountInvitationMessage({ to: invited.user.email, url, days: INVITATION_DAYS, service: new URL(ctx.deps.config.publicUrl).host }), 'studio invitation mail', url);
  if (ctx.deps.mailer.mails) return ctx.redirect(reply, '/studio/admin/accounts?done=invited');
  // No mail server: this answer shows the link to the operator (it is also in the log).
  return accountsScreen(ctx, reply, s, 200, 1, { notice: 'The account was created.', link: url });
}

async function appsList(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = await needAdmin(ctx, req);
  return appsScreen(ctx, reply, s, 200, { notice: (req.query as { done?: string }).done === 'revoked' ? 'The application is revoked: its key signs nothing any more.' : undefined });
}

async function createApp(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = await adminPost(ctx, req);
  const name = form.str('name') ?? '';
  try {
    // The operator's application (as `admin app create` makes them): no owner.
    const created = await ctx.deps.apps.create(name);
    // This answer, and no other, carries the secret (never cached: no-store).
    return await appsScreen(ctx, reply, s, 200, { created: { name: name.trim(), ...created } });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    return appsScreen(ctx, reply, s, 422, { error: err.message.replace(APP_NAME, 'The name') });
  }
}

async function revokeApp(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  await adminPost(ctx, req);
  await ctx.deps.apps.revoke({ operator: true }, (req.params as { key: string }).key);
  return ctx.redirect(reply, '/studio/admin/apps?done=revoked');
}

async function jobQueue(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = await needAdmin(ctx, req);
  const { lanes, running } = await ctx.deps.jobs.overview(RUNNING_SHOWN);
  const byLane = new Map(lanes.map((l) => [l.lane, l]));
  return ctx.send(
    reply,
    200,
    jobQueuePage({
      viewer: s.viewer,
      now: Date.now(),
      lanes: (['interactive', 'background'] as const).map((lane) => ({ lane, pending: byLane.get(lane)?.pending ?? 0, oldest: byLane.get(lane)?.oldestCreatedAt })),
      running: running.map((j) => ({ uuid: j.uuid, kind: j.kind, owner: j.owner_email, processed: j.processed, total: j.total, startedAt: j.started_at })),
    }),
  );
}

async function welcomeScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const user = await ctx.deps.users.invitation(tokenOf(req));
  if (!user) return welcomeForm(ctx, req, reply, 404, { gone: true });
  return welcomeForm(ctx, req, reply, 200, { email: user.email });
}

async function acceptWelcome(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, ctx.cookies.read(req, ctx.cookies.signinToken));
  let user;
  try {
    user = await ctx.deps.users.acceptInvitation(tokenOf(req), form.str('password') ?? '');
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    const pending = await ctx.deps.users.invitation(tokenOf(req));
    if (!pending) return welcomeForm(ctx, req, reply, 404, { gone: true });
    return welcomeForm(ctx, req, reply, 422, { email: pending.email, error: { field: 'password', message: err.message } });
  }
  if (!user) return welcomeForm(ctx, req, reply, 404, { gone: true });
  return ctx.redirect(reply, '/studio/signin');
}

