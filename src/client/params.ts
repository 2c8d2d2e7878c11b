// Request parameters: one record, three wire forms (query string, urlencoded
// form, multipart). Encoding is done here once so that the signed query
// string is exactly what goes on the wire.

export type ParamValue = string | number | boolean;
/** undefined and null values are left out, so optional attributes can be passed as-is. */
export type Params = Record<string, ParamValue | readonly ParamValue[] | undefined | null>;

export interface FilePart {
  field: string;
  fileName: string;
  contentType?: string;
  data: Buffer | Uint8Array | Blob | ReadableStream<Uint8Array>;
}

/** Flags are 0/1 in this API (spec 2.3, 2.6), so booleans are sent that way. */
function scalar(v: ParamValue): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  return String(v);
}

/**
 * Flattens params to ordered name/value pairs. Array values are repeated
 * once per item under `name[]` (the suffix is added when missing).
 */
export function toPairs(params: Params | undefined): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (!params) return pairs;
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      const arrayName = name.endsWith('[]') ? name : `${name}[]`;
      for (const item of value as readonly ParamValue[]) pairs.push([arrayName, scalar(item)]);
    } else {
      pairs.push([name, scalar(value as ParamValue)]);
    }
  }
  return pairs;
}

/** `a=1&b%5B%5D=x`: encodeURIComponent on names and values, `[` `]` included. */
export function encodePairs(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&');
}

export function encodeParams(params: Params | undefined): string {
  return encodePairs(toPairs(params));
}

/**
 * The multipart body as a FormData: fields in order, then the file. Streams
 * are read into a Blob first because a request may have to be re-sent
 * (OTP prompt, expired session, 429) and a stream can be read only once.
 */
export async function toFormData(pairs: ReadonlyArray<readonly [string, string]>, file?: FilePart): Promise<FormData> {
  const form = new FormData();
  for (const [name, value] of pairs) form.append(name, value);
  if (file) {
    const type = file.contentType ?? 'application/octet-stream';
    let blob: Blob;
    if (file.data instanceof Blob) {
      blob = file.contentType && file.data.type !== file.contentType ? file.data.slice(0, file.data.size, type) : file.data;
    } else if (file.data instanceof Uint8Array) {
      // Blob parts cannot be views of shared memory: copy only in that rare case.
      const bytes = file.data.buffer instanceof ArrayBuffer ? (file.data as Uint8Array<ArrayBuffer>) : new Uint8Array(file.data);
      blob = new Blob([bytes], { type });
    } else {
      blob = new Blob([await new Response(file.data).arrayBuffer()], { type });
    }
    form.append(file.field, blob, file.fileName);
  }
  return form;
}
