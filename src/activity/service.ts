// What clients did in a photographer's galleries: `record`, the one entry every part calls, starts the
// write and returns (never blocking nor failing a visitor's request; a failure is logged); the reads
// and a client's deletion for the API extension and the admin command; `purge`, the retention sweep
// (docs/delivery.md, "Activity").
import type { Logger } from 'pino';
import type { Access } from '../access/access.js';
import { clientEmail } from '../galleries/acl.js';
import { invalid, missing } from '../core/errors.js';
import type { UserRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';
import type { ActivityRepository, ClientSummaryRow, DailyRow, EventRow, GalleryCount, GalleryRef, MediaCount } from './repository.js';

export type { EventRow } from './repository.js';

export const ACTIVITY_KINDS = ['view', 'download', 'archive', 'pick', 'unpick', 'sent', 'invited'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** Who did it: an address proven by a sign-in link (`verified`), or only given in a form. */
export interface ActivityClient {
  email: string;
  verified: boolean;
  /** Not an address: a share link's recipient as the photographer named them ("share link: Ann"), kept as it is. */
  label?: boolean;
}

export interface ActivityEvent {
  /** The gallery: its id, or its UUID. */
  gallery: GalleryRef;
  /** null: an anonymous visitor (only counted per gallery and day). */
  client: ActivityClient | null;
  kind: ActivityKind;
  mediaId?: number | null;
  /** Bytes sent (a download, an archive). */
  bytes?: number | null;
  at?: Date;
}

/** How long events and counters are kept by default (ACTIVITY_RETENTION_DAYS). */
export const DEFAULT_RETENTION_DAYS = 400;
/**
 * The same view (of a gallery) or download (of a media) by the same client within this is one
 * event: a visitor paging through a gallery, reloading or resuming a download adds nothing.
 */
export const DEDUPE_MS = 30 * 60_000;
/** Writes in flight at most; beyond it an event is dropped (and counted in the log), never queued without bound. */
const MAX_PENDING = 1000;
/**
 * Anonymous events are added up in memory and written every so often, one statement per gallery,
 * day and kind: a page the micro-cache serves costs no write, however popular. At most this many
 * counters wait; one more writes them at once. A crash loses the last seconds' counts.
 */
const ANONYMOUS_FLUSH_MS = 5000;
const ANONYMOUS_KEYS = 5000;
/** Clients in a gallery's summary: the most recently active. */
export const SUMMARY_CLIENTS = 500;
export const ACTIVITY_MAX_PER_PAGE = 500;

type User = Pick<UserRow, 'id'>;

/** Weeks the studio's analytics show (docs/studio.md, "Analytics"), and the top lists' length. */
export const ANALYTICS_WEEKS = 12;
export const ANALYTICS_TOP = 10;

/** One week (from Monday, UTC) of an owner's websites. */
export interface WeekFigures {
  /** The Monday, YYYY-MM-DD. */
  start: string;
  /** Gallery views: clients' and anonymous visitors'. */
  visits: number;
  /** Single files and archives. */
  downloads: number;
  /** Photos chosen as favourites. */
  favourites: number;
  /** Selections sent to the photographer. */
  selections: number;
}

export interface Analytics {
  weeks: WeekFigures[];
  galleries: GalleryCount[];
  medias: MediaCount[];
}

const DAY_MS = 86_400_000;

/** The Monday (UTC) of the week holding `day` (YYYY-MM-DD). */
function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
}

export interface EventPage {
  total: number;
  page: number;
  perPage: number;
  events: EventRow[];
}

export interface GalleryActivity extends EventPage {
  galleryUuid: string;
  clients: ClientSummaryRow[];
  anonymous: DailyRow[];
}

/** Another part's data about a client (sign-in links, selections…), deleted with the client's activity. */
export interface ClientDataEraser {
  /** Its name in the reply (`deleted-<name>`). */
  name: string;
  /** Deletes what the owner's websites keep about the (lower-cased) address; how many rows. */
  forget(ownerId: number, email: string): Promise<number>;
}

export class ActivityService {
  private readonly pending = new Set<Promise<void>>();
  /** The last write of each deduplicated event still in flight (write). */
  private readonly sameEvent = new Map<string, Promise<void>>();
  private dropped = 0;
  private anonymous = new Map<string, { gallery: GalleryRef; day: string; kind: string; count: number; bytes: number }>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly repo: ActivityRepository,
    private readonly access: Access,
    private readonly log: Pick<Logger, 'error' | 'warn'>,
    private readonly settings: { retentionDays: number } = { retentionDays: DEFAULT_RETENTION_DAYS },
    private readonly erasers: ClientDataEraser[] = [],
  ) {}

  /** Another part's client data, deleted with a client's activity (wired by the composition root). */
  addEraser(eraser: ClientDataEraser): void {
    this.erasers.push(eraser);
  }

  /**
   * Records an event in the background: never throws, never waits. `alongside` (an archive's
   * archive.downloaded webhook event) is written in the transaction of a known client's row, so
   * neither stands without the other; an anonymous visitor's archive is only a counter in memory,
   * so it is written in a transaction of its own. An event with `alongside` is never dropped.
   */
  record(event: ActivityEvent, alongside?: (unit: Unit) => Promise<void>): void {
    if (!event.client) {
      this.count(event);
      if (alongside) this.track(this.repo.inUnit(alongside), event.kind);
      return;
    }
    if (!alongside && this.pending.size >= MAX_PENDING) {
      if (this.dropped++ % 1000 === 0) this.log.warn({ dropped: this.dropped }, 'activity: too many writes in flight, events dropped');
      return;
    }
    this.track(this.write({ ...event, client: event.client }, alongside), event.kind);
  }

  private track(write: Promise<void>, kind: string): void {
    const task = write.catch((err: unknown) => this.log.error({ err, kind }, 'activity event could not be recorded'));
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  /** One more anonymous event, added to its counter in memory. */
  private count(e: ActivityEvent): void {
    const gallery = typeof e.gallery === 'string' ? e.gallery.toLowerCase() : e.gallery;
    const day = (e.at ?? new Date()).toISOString().slice(0, 10);
    const key = `${typeof gallery}:${gallery}:${day}:${e.kind}`;
    const c = this.anonymous.get(key);
    if (c) {
      c.count++;
      c.bytes += e.bytes ?? 0;
    } else {
      this.anonymous.set(key, { gallery, day, kind: e.kind, count: 1, bytes: e.bytes ?? 0 });
    }
    if (this.anonymous.size >= ANONYMOUS_KEYS) this.flush();
    else if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => this.flush(), ANONYMOUS_FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  /** Writes the anonymous counters added up so far. */
  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const counters = [...this.anonymous.values()];
    this.anonymous = new Map();
    if (counters.length === 0) return;
    this.track(
      (async () => {
        for (const c of counters) await this.repo.countAnonymous(c.gallery, c.day, c.kind, c.count, c.bytes);
      })(),
      'anonymous',
    );
  }

  /** Resolves once every event recorded so far is written (tests, shutdown, the admin command). */
  async idle(): Promise<void> {
    this.flush();
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** A known client's event: a row (a repeated view or download within DEDUPE_MS adds none). */
  private async write(e: ActivityEvent & { client: ActivityClient }, alongside?: (unit: Unit) => Promise<void>): Promise<void> {
    const at = e.at ?? new Date();
    const gallery = typeof e.gallery === 'string' ? e.gallery.toLowerCase() : e.gallery;
    const email = e.client.label ? e.client.email.trim().slice(0, 254) || undefined : clientEmail(e.client.email);
    if (!email) {
      if (alongside) await this.repo.inUnit(alongside);
      return;
    }
    const dedupe = e.kind === 'view' || e.kind === 'download' ? new Date(at.getTime() - DEDUPE_MS).toISOString() : undefined;
    const insert = () => this.repo.insertEvent({ gallery, email, verified: e.client.verified, kind: e.kind, mediaId: e.mediaId ?? null, bytes: e.bytes ?? null, at: at.toISOString() }, dedupe, alongside);
    if (dedupe === undefined) {
      await insert();
      return;
    }
    // The same event's writes one after another in this process: the statement's NOT EXISTS does not
    // see a write still in flight, and two page loads a moment apart were both recorded on PostgreSQL.
    const key = `${gallery}|${email}|${e.kind}|${e.mediaId ?? ''}`;
    const before = this.sameEvent.get(key) ?? Promise.resolve();
    const mine = before.then(insert, insert).then(() => undefined);
    this.sameEvent.set(key, mine);
    try {
      await mine;
    } finally {
      if (this.sameEvent.get(key) === mine) this.sameEvent.delete(key);
    }
  }

  /** The id of a gallery the user may manage; 404 otherwise. */
  galleryOf(user: User, galleryUuid: string): Promise<number> {
    return this.access.requireOne(user, 'gallery', galleryUuid, { notFound: 'gallery' });
  }

  /** A gallery's events (newest first, one client's when asked), its clients' summary and its anonymous counters. */
  async gallery(user: User, galleryUuid: string, opts: { client?: string; page: number; perPage: number }): Promise<GalleryActivity> {
    const galleryId = await this.galleryOf(user, galleryUuid);
    const email = opts.client === undefined ? undefined : emailOf(opts.client, 'client');
    const [page, clients, anonymous] = await Promise.all([
      this.repo.galleryEvents(galleryId, email, (opts.page - 1) * opts.perPage, opts.perPage),
      this.repo.clientSummary(galleryId, SUMMARY_CLIENTS),
      this.repo.daily(galleryId),
    ]);
    return { galleryUuid: galleryUuid.toLowerCase(), total: page.total, events: page.rows, page: opts.page, perPage: opts.perPage, clients, anonymous };
  }

  /**
   * What one client did in one gallery, for the proofing screen beside their selection: their
   * latest `limit` events (newest first) and their counts per kind. 404 for a gallery the user
   * may not manage; nothing for an address that is not one.
   */
  async clientInGallery(user: User, galleryUuid: string, rawEmail: string, limit: number): Promise<{ total: number; events: EventRow[]; kinds: Array<{ kind: string; count: number; bytes: number; first_at: string; last_at: string }> }> {
    const galleryId = await this.galleryOf(user, galleryUuid);
    const email = clientEmail(rawEmail);
    if (!email) return { total: 0, events: [], kinds: [] };
    const [page, kinds] = await Promise.all([this.repo.galleryEvents(galleryId, email, 0, Math.min(limit, ACTIVITY_MAX_PER_PAGE)), this.repo.clientKinds(galleryId, email)]);
    return { total: page.total, events: page.rows, kinds };
  }

  /** The user's events of one client, across their galleries. */
  async client(user: User, rawEmail: string | undefined, opts: { page: number; perPage: number }): Promise<EventPage & { client: string }> {
    const email = emailOf(rawEmail, 'client');
    const page = await this.repo.clientEvents(user.id, email, (opts.page - 1) * opts.perPage, opts.perPage);
    return { client: email, total: page.total, events: page.rows, page: opts.page, perPage: opts.perPage };
  }

  /** Deletes what the user's websites keep about a client (a client's data on request); how many of each. */
  async forget(user: User, rawEmail: string | undefined): Promise<{ client: string; deleted: Record<string, number> }> {
    const email = emailOf(rawEmail, 'client');
    // Events being written now are written first, so none outlives the deletion.
    await this.idle();
    const deleted: Record<string, number> = { events: await this.repo.deleteClient(user.id, email) };
    for (const e of this.erasers) deleted[e.name] = await e.forget(user.id, email);
    return { client: email, deleted };
  }

  /** Deletes events and counters older than the retention; how many rows. */
  purge(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.settings.retentionDays * 86_400_000);
    return this.repo.purge(before.toISOString(), before.toISOString().slice(0, 10));
  }

  /**
   * What happened on the user's websites in the last ANALYTICS_WEEKS weeks (this one included), week
   * by week, and the most visited galleries and most chosen photos over them: from the activity
   * already kept, no cookie, no third party.
   */
  async analytics(user: User, now: Date = new Date()): Promise<Analytics> {
    const firstMonday = mondayOf(new Date(now.getTime() - (ANALYTICS_WEEKS - 1) * 7 * DAY_MS).toISOString().slice(0, 10));
    const sinceAt = `${firstMonday}T00:00:00.000Z`;
    const [known, anonymous, galleries, medias] = await Promise.all([
      this.repo.ownerEventsByDay(user.id, sinceAt),
      this.repo.ownerDailyByDay(user.id, firstMonday),
      this.repo.ownerTopGalleries(user.id, sinceAt, firstMonday, ANALYTICS_TOP),
      this.repo.ownerTopMedias(user.id, sinceAt, ANALYTICS_TOP),
    ]);
    const weeks = new Map<string, WeekFigures>();
    for (let i = 0; i < ANALYTICS_WEEKS; i++) {
      const start = new Date(new Date(`${firstMonday}T00:00:00.000Z`).getTime() + i * 7 * DAY_MS).toISOString().slice(0, 10);
      weeks.set(start, { start, visits: 0, downloads: 0, favourites: 0, selections: 0 });
    }
    for (const r of [...known, ...anonymous]) {
      const week = weeks.get(mondayOf(r.day));
      if (!week) continue;
      if (r.kind === 'view') week.visits += r.count;
      else if (r.kind === 'download' || r.kind === 'archive') week.downloads += r.count;
      else if (r.kind === 'pick') week.favourites += r.count;
      else if (r.kind === 'sent') week.selections += r.count;
    }
    return { weeks: [...weeks.values()], galleries, medias };
  }
}

function emailOf(raw: string | undefined, name: string): string {
  if (raw === undefined || raw.trim() === '') throw missing(name);
  const email = clientEmail(raw);
  if (!email) throw invalid(`${name} must be an e-mail address`);
  return email;
}
