// A website's own host name: the names no website may take (the service's own), and the proof
// of control a photographer gives before a name takes effect (docs/website.md "Host names").
// DNS is the one outside boundary here: a TxtResolver the composition root gives (node's
// resolver; a fake in tests).
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';

/** The label under a host name where its TXT proof is looked for: `_mps-challenge.photos.example.com`. */
export const CHALLENGE_LABEL = '_mps-challenge';

/** What a TXT lookup answers: each record as its strings (RFC 1035 character-strings), as node's resolveTxt gives them. */
export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

/** Node's resolver, bounded: a slow or silent DNS server costs at most about 2 × 3 s. */
export function systemResolver(): TxtResolver {
  return new Resolver({ timeout: 3000, tries: 2 });
}

/** A host name without its port, lower-cased: how host names are compared. */
export function hostPart(host: string): string {
  return host.toLowerCase().replace(/:\d*$/, '');
}

/**
 * The host names of the service itself, without ports: PUBLIC_URL's, the object store's endpoint
 * (STORAGE_URL), and RESERVED_HOSTNAMES. Read at each use (PUBLIC_URL may be settled after start).
 */
export function ownHosts(config: { readonly publicUrl?: string; readonly storageUrl?: string; readonly reservedHostnames?: readonly string[] }): Set<string> {
  const out = new Set<string>();
  const add = (url: string | undefined | null) => {
    if (!url) return;
    try {
      const host = new URL(url).hostname;
      if (host) out.add(host.toLowerCase().replace(/^\[|\]$/g, ''));
    } catch {
      /* a bad address stops the service elsewhere */
    }
  };
  add(config.publicUrl);
  if (config.storageUrl?.startsWith('s3:')) {
    try {
      add(new URL(config.storageUrl).searchParams.get('endpoint'));
    } catch {
      /* as above */
    }
  }
  for (const name of config.reservedHostnames ?? []) out.add(hostPart(name));
  return out;
}

/** Whether `hostname` (with or without its port, any case) is one of the service's own. */
export function isOwnHost(hostname: string, own: ReadonlySet<string>): boolean {
  return own.has(hostPart(hostname));
}

/** A new proof token: 128 bits, URL- and DNS-safe. */
export function newProofToken(): string {
  return `mps-${randomBytes(16).toString('hex')}`;
}

/** The name whose TXT record proves control of `hostname`. */
export function challengeName(hostname: string): string {
  return `${CHALLENGE_LABEL}.${hostPart(hostname)}`;
}

export type ProofOutcome = { ok: true } | { ok: false; reason: string };

/**
 * Looks for `token` among the TXT records of the host's challenge name. The reason of a failure
 * is written for the photographer (shown in the studio); nothing of the DNS answer is echoed.
 */
export async function checkTxtProof(resolver: TxtResolver, hostname: string, token: string): Promise<ProofOutcome> {
  const name = challengeName(hostname);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(name);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { ok: false, reason: `No TXT record was found at ${name} yet.` };
    return { ok: false, reason: `The DNS lookup of ${name} did not succeed (${code ?? 'error'}); try again later.` };
  }
  if (records.some((r) => r.join('').trim() === token)) return { ok: true };
  return { ok: false, reason: `${name} has TXT records, but none of them is the token.` };
}
