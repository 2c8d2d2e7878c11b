// Webhooks' pure rules (docs/integrations.md "Webhooks"): the retry wait doubles from the base up to
// the cap with jitter between half and all of it; an endpoint's events are `*` alone or known types,
// deduplicated in the list's order; an address is http(s) without credentials or fragment.
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/webhooks/dispatcher.js';
import { checkEndpointUrl, parseEvents } from '../../src/webhooks/fields.js';
import { eventsColumn, eventsOf } from '../../src/webhooks/repository.js';

describe('webhook retries', () => {
  const s = { retryBaseMs: 30_000, retryMaxMs: 6 * 3_600_000 };
  it('doubles from the base at each attempt, capped', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, s, () => 1))).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(backoffMs(20, s, () => 1)).toBe(6 * 3_600_000);
    expect(backoffMs(10_000, s, () => 1)).toBe(6 * 3_600_000);
  });
  it('waits between half and all of it (jitter)', () => {
    expect(backoffMs(3, s, () => 0)).toBe(60_000);
    expect(backoffMs(3, s, () => 0.5)).toBe(90_000);
  });
  it('fills three days with 21 waits at the longest (the defaults)', () => {
    let t = 0;
    let n = 0;
    while (t < 3 * 86_400_000) t += backoffMs(++n, s, () => 1);
    expect(n).toBe(21);
  });
});

describe('webhook endpoints', () => {
  it('reads the events: * alone, or known types, deduplicated, in the list of types order', () => {
    expect(parseEvents('*')).toEqual(['*']);
    expect(parseEvents(' order.paid , media.ready,order.paid ')).toEqual(['media.ready', 'order.paid']);
    expect(parseEvents('media.ready,*')).toBe('must be * alone or a list of events');
    expect(parseEvents(' , ')).toBe('must name at least one event (or * for all)');
    expect(parseEvents('media.readyy')).toMatch(/^has an unknown event "media.readyy"/);
  });
  it('keeps the events as one column matched with LIKE', () => {
    expect(eventsColumn(['media.ready', 'order.paid'])).toBe(',media.ready,order.paid,');
    expect(eventsColumn(['*'])).toBe('*');
    expect(eventsOf(',media.ready,order.paid,')).toEqual(['media.ready', 'order.paid']);
  });
  it('takes http(s) addresses without credentials or fragment', () => {
    expect(checkEndpointUrl('https://hooks.example.com/x?token=1')).toBeUndefined();
    expect(checkEndpointUrl('http://10.0.0.1/')).toBeUndefined();
    expect(checkEndpointUrl('ftp://example.com/')).toBe('must be an http or https address');
    expect(checkEndpointUrl('https://a:b@example.com/')).toBe('must not carry a user name or password');
    expect(checkEndpointUrl('https://example.com/#x')).toBe('must not have a fragment (#…)');
    expect(checkEndpointUrl('example.com')).toBe('must be an absolute http or https address');
  });
});
