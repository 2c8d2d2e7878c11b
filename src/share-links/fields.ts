// A share link's input, declared once for the API (`share_link[recipient]`, …) and the studio:
// who it is for, when it ends (30 days by default), how many visits, a password, a download level.
import { bracketNames, custom, instant, int, line, oneOf, refuse, type InputOf } from '../core/fields.js';

export const SHARE_DOWNLOADS = ['none', 'comps', 'originals'] as const;
export type ShareDownload = (typeof SHARE_DOWNLOADS)[number];
/** A link's expiry when none is given. */
export const DEFAULT_SHARE_DAYS = 30;

export const SHARE_LINK_FIELDS = {
  recipient: line({ max: 200 }),
  expires_at: instant(),
  max_views: int({ min: 1, max: 1_000_000, blank: 'null' }),
  password: custom<string | null>((raw, at) => {
    if (raw === undefined) return undefined;
    if (raw === '') return null;
    if (raw.length > 200) throw refuse(at, `${at.name} must be at most 200 characters long`);
    return raw;
  }),
  download: oneOf(SHARE_DOWNLOADS),
};

export type ShareLinkInput = InputOf<typeof SHARE_LINK_FIELDS>;

/** The API's names: `share_link[recipient]`, `share_link[expires_at]`, … */
export const SHARE_LINK_API = bracketNames('share_link', SHARE_LINK_FIELDS);
