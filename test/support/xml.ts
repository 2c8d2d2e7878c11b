// Reading replies in tests: the SDK's XML reader plus a few assertions.
import { expect } from 'vitest';
import { parseXml, type XmlNode } from '../../src/client/xml.js';

export function parseReply(body: string): XmlNode {
  expect(body.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  const doc = parseXml(body);
  expect(doc.name).toBe('reply');
  return doc;
}

export async function replyOf(res: Response): Promise<{ status: number; doc: XmlNode; body: string }> {
  const body = await res.text();
  expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
  return { status: res.status, doc: parseReply(body), body };
}
