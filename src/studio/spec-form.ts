// A studio form over an operation's field spec (src/core/fields.ts, docs/architecture.md "One
// contract"): each spec key's name in the form (also its field's id), the words its messages
// use, the source the spec reads the body through, and a refusal shown at the field `err.field` names.
import { ApiError } from '../core/errors.js';
import { paramOf, type Entry, type Naming, type Source, type Spec } from '../core/fields.js';
import type { Body } from './body.js';

/** The message a screen shows next to one of its form's fields ('': above the form). */
export interface FieldError {
  field: string;
  message: string;
}

export interface SpecForm {
  /** The form's name of a spec key (`contentOrder` → `content_order`), also its field's id. */
  name: Naming;
  /** How a message names the key, for people (`content order`). */
  words: Naming;
  /**
   * The body as the spec's source: the keys the form holds, each under its form name (any other
   * is not sent); with `blank`, a field of the form left out is sent blank.
   */
  source(body: Body, keys: readonly string[], opts?: { blank?: boolean; entries?: (key: string) => Entry[] | undefined }): Source;
  /** A service's 422 at its field (by `err.field`), worded for people; anything else is thrown on. */
  refusal(err: unknown): FieldError;
}

/**
 * `api`: the API's names of the spec (a service words its own refusals with them); `rename`:
 * the form names that are not the spec's own (`coverMedia` is the form's `cover`); `say`: the
 * words of a key when they are not its name's (`smartName`: "The name").
 */
export function specForm(spec: Spec, api: Naming, rename: Record<string, string> = {}, say: Record<string, string> = {}): SpecForm {
  const name: Naming = (key) => rename[key] ?? paramOf(spec, key);
  const words: Naming = (key) => say[key] ?? paramOf(spec, key).replace(/_/g, ' ');
  return {
    name,
    words,
    source: (body, keys, opts = {}) => ({
      value: (key) => (keys.includes(key) ? (body.str(name(key)) ?? (opts.blank ? '' : undefined)) : undefined),
      values: (key) => (keys.includes(key) && body.has(name(key)) ? body.list(name(key)) : undefined),
      entries: (key) => (keys.includes(key) ? opts.entries?.(key) : undefined),
    }),
    refusal(err) {
      if (!(err instanceof ApiError) || err.status !== 422) throw err;
      if (err.field === undefined) return { field: '', message: err.message };
      // A service words a refusal with the API's name of the field: the form's words instead.
      return { field: name(err.field), message: err.message.split(api(err.field)).join(words(err.field)) };
    },
  };
}
