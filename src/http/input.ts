// What a route reads from its parameters, declared once: the names it accepts
// (the whitelist the router enforces, any other name is a 400) and how they
// become the handler's typed input, with the 422 that names a wrong value.
// Reading a name means declaring it, so the two cannot drift apart.
import { namesOf, readFields, type Entry, type Field, type InputOf, type Mode, type Naming, type Source, type Spec } from '../core/fields.js';
import type { UploadedFile } from './context.js';
import { pageParams, PAGINATION_PARAMS, type Page, type Params } from './params.js';

/** What the OpenAPI description (src/http/openapi.ts) says of one accepted name; `undeclared`: read by hand, kind unknown. */
export interface ParamDoc {
  readonly name: string;
  readonly kind: Field<unknown>['kind'] | 'page' | 'undeclared';
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly allowed?: readonly string[];
  readonly default?: string;
}

export interface Input<T> {
  /** Accepted parameter names; `*` matches one bracket segment. */
  readonly names: readonly string[];
  /** The names described, when the input declares them (the helpers below); absent: read by hand. */
  readonly docs?: readonly ParamDoc[];
  /** The typed input; a wrong value throws a 422 naming the parameter. Runs before the handler (src/http/router.ts). */
  read(params: Params, file: UploadedFile | undefined): T;
}

type Shape<S> = { [K in keyof S]: S[K] extends Input<infer V> ? V : never };

export function input<T>(names: readonly string[], read: (params: Params, file: UploadedFile | undefined) => T, docs?: readonly ParamDoc[]): Input<T> {
  return docs ? { names, read, docs } : { names, read };
}

/** An input's described names: its docs, or each name as undeclared. */
export function docsOf(i: Pick<Input<unknown>, 'names' | 'docs'>): readonly ParamDoc[] {
  return i.docs ?? i.names.map((name) => ({ name, kind: 'undeclared' as const }));
}

/** A route that takes no parameter at all. */
export const NO_INPUT: Input<undefined> = input([], () => undefined);

/** Several inputs read into one object, in the order they are declared (the first wrong value is the one reported). */
export function fields<S extends Record<string, Input<unknown>>>(spec: S): Input<Shape<S>> {
  const entries = Object.entries(spec);
  const docs = entries.flatMap(([, i]) => docsOf(i)).filter((d, n, all) => all.findIndex((o) => o.name === d.name) === n);
  return input(
    [...new Set(entries.flatMap(([, i]) => i.names))],
    (params, file) => {
      const out: Record<string, unknown> = {};
      for (const [key, i] of entries) out[key] = i.read(params, file);
      return out as Shape<S>;
    },
    docs,
  );
}

/** A text parameter as sent (undefined when absent). */
export function text(name: string): Input<string | undefined> {
  return input([name], (p) => p.str(name), [{ name, kind: 'text' }]);
}

/** A text parameter whose blank value means none. */
export function optionalText(name: string): Input<string | undefined> {
  return input([name], (p) => p.str(name) || undefined, [{ name, kind: 'text' }]);
}

/** A 0/1 flag (also true/false). */
export function flag(name: string): Input<boolean | undefined> {
  return input([name], (p) => p.flag(name), [{ name, kind: 'flag' }]);
}

export function int(name: string, bounds: { min?: number; max?: number } = {}): Input<number | undefined> {
  return input([name], (p) => p.int(name, bounds), [{ name, kind: 'int', ...bounds }]);
}

/** One of `allowed`; `fallback` when absent or blank. */
export function choice<T extends string>(name: string, allowed: readonly T[], fallback: T): Input<T> {
  return input([name], (p) => p.oneOf(name, allowed) ?? fallback, [{ name, kind: 'oneOf', allowed, default: fallback }]);
}

/** `page` and `per_page` (1 to `maxPerPage`). */
export function pagination(maxPerPage: number, defaultPerPage?: number): Input<Page> {
  return input(PAGINATION_PARAMS, (p) => pageParams(p, maxPerPage, defaultPerPage), [
    { name: 'page', kind: 'page', min: 1 },
    { name: 'per_page', kind: 'page', min: 1, max: maxPerPage },
  ]);
}

/** What a source of flat bracketed names needs: the request's Params, or a form read the same way. */
export type FlatValues = Pick<Params, 'str' | 'all' | 'namesUnder'>;

/** Flat bracketed names (`gallery[acl][1][email]`) as a field spec's source, under the face's names (`naming`). */
export function paramsSource(p: FlatValues, naming: Naming): Source {
  return {
    value: (key) => p.str(naming(key)),
    values: (key) => p.all(naming(key)),
    entries: (key) => {
      const name = naming(key);
      const ids = new Set<string>();
      for (const n of p.namesUnder(`${name}[`)) {
        const close = n.indexOf(']', name.length + 1);
        if (close > 0) ids.add(n.slice(name.length + 1, close));
      }
      return [...ids].map((id): Entry => ({ id, value: (sub) => p.str(`${name}[${id}][${sub}]`) }));
    },
  };
}

/** An operation's field spec as a route's input: its whitelist and its reading, under the API's names. */
export function specInput<S extends Spec>(spec: S, naming: Naming, mode: Mode = 'update'): Input<InputOf<S>> {
  return input(namesOf(spec, naming), (p) => readFields(spec, paramsSource(p, naming), naming, mode), specDocs(spec, naming, mode));
}

/** A field spec's names described: kind, bounds, choices, and whether this mode requires it. */
export function specDocs(spec: Spec, naming: Naming, mode: Mode): ParamDoc[] {
  return Object.entries(spec).flatMap(([key, f]) => {
    const doc = { kind: f.kind, min: f.min, max: f.max, allowed: f.allowed, required: f.required === 'always' || f.required === mode || undefined };
    const names = f.subs ? f.subs.map((sub) => `${naming(key)}[*][${sub}]`) : [naming(key)];
    return names.map((name) => ({ name, ...(f.subs ? { kind: 'text' as const } : doc) }));
  });
}
