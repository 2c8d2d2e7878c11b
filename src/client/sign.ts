// Application signing of one request (spec 5.1), on top of the shared
// computeSignature so client and server agree on the signed text.
import { computeSignature, rfc2822, type SignatureAlgorithm } from '../http/signing.js';

export type TimestampFormat = 'rfc2822' | 'iso' | 'posix';

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** ISO 8601 with the local offset, as desktop clients send it: 2026-11-21T14:03:07+01:00. */
export function isoLocal(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

export function formatTimestamp(format: TimestampFormat, date: Date = new Date()): string {
  switch (format) {
    case 'iso':
      return isoLocal(date);
    case 'posix':
      return String(Math.floor(date.getTime() / 1000));
    default:
      return rfc2822(date);
  }
}

export interface SignInput {
  method: string;
  /** Path exactly as on the wire, `.xml` included. */
  path: string;
  /** Query string exactly as on the wire, without `?`. */
  query: string;
  apiKey: string;
  apiSecret: string;
  timestamp: string;
  algorithm?: SignatureAlgorithm;
}

export function signatureHeaders(input: SignInput): Record<string, string> {
  const signature = computeSignature(input.method, input.path, input.query, input.apiSecret, input.timestamp, input.algorithm);
  return {
    'X-Service-Authorization': `${input.apiKey}:${signature}`,
    'X-Service-Timestamp': input.timestamp,
  };
}
