// A webhook endpoint's input, declared once for the API (`webhook[url]`), the admin command
// (`--url`) and the studio: an http(s) address and the events it wants (dotted names, `*` all).
import { bracketNames, custom, line, refuse, yesNo, missingField, type InputOf } from '../core/fields.js';
import { ALL_EVENTS, isEventType, WEBHOOK_EVENT_TYPES } from './events.js';

export const MAX_URL_LENGTH = 2000;

/** An absolute http(s) URL without credentials or fragment; the address it reaches is checked at each delivery. */
export function checkEndpointUrl(v: string): string | undefined {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return 'must be an absolute http or https address';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http or https address';
  if (u.username || u.password) return 'must not carry a user name or password';
  if (u.hash) return 'must not have a fragment (#…)';
  return undefined;
}

/** '*' or a comma list of known types, deduplicated, in the list's order. */
export function parseEvents(raw: string): string[] | string {
  const parts = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0) return 'must name at least one event (or * for all)';
  if (parts.includes(ALL_EVENTS)) return parts.length === 1 ? [ALL_EVENTS] : `must be * alone or a list of events`;
  const unknown = parts.find((p) => !isEventType(p));
  if (unknown !== undefined) return `has an unknown event ${JSON.stringify(unknown.slice(0, 60))} (known: ${WEBHOOK_EVENT_TYPES.join(', ')}, or *)`;
  return WEBHOOK_EVENT_TYPES.filter((t) => parts.includes(t));
}

export const WEBHOOK_FIELDS = {
  url: custom<string>((raw, at) => {
    if (raw === undefined || raw.trim() === '') {
      if (at.mode === 'create' || raw !== undefined) throw missingField(at);
      return undefined;
    }
    const v = raw.trim();
    if (v.length > MAX_URL_LENGTH) throw refuse(at, `${at.name} must be at most ${MAX_URL_LENGTH} characters long`);
    const wrong = checkEndpointUrl(v);
    if (wrong) throw refuse(at, `${at.name} ${wrong}`);
    return v;
  }),
  events: custom<string[]>(
    (raw, at) => {
      if (raw === undefined) {
        if (at.mode === 'create') throw missingField(at);
        return undefined;
      }
      const r = parseEvents(raw);
      if (typeof r === 'string') throw refuse(at, `${at.name} ${r}`);
      return r;
    },
    { allowed: [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES] },
  ),
  description: line({ max: 255 }),
  enabled: yesNo(),
};

export type WebhookInput = InputOf<typeof WEBHOOK_FIELDS>;

/** The API's names: `webhook[url]`, `webhook[events]`. */
export const WEBHOOK_API = bracketNames('webhook', WEBHOOK_FIELDS);
