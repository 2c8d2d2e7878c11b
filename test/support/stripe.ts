// A local stand-in for the few Stripe API calls the shop makes (Checkout
// Session create and retrieve, refunds), for the official `stripe` package
// pointed at it with STRIPE_API_BASE; and webhook deliveries signed exactly as
// Stripe signs them (the package's own generateTestHeaderString). The one
// external service the tests cannot run for real (docs/testing.md).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import Stripe from 'stripe';

export interface StandInSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  url: string;
  success_url: string;
  cancel_url: string;
  livemode: false;
}

export interface StripeStandIn {
  base: string;
  /** Every session, by id, with the key that made it. */
  sessions: Map<string, { session: StandInSession; key: string }>;
  refunds: Array<{ id: string; payment_intent: string; amount: number; key: string }>;
  /** Requests as received: method, path, key. */
  requests: Array<{ method: string; path: string; key: string }>;
  /** What a buyer paying on Stripe's page does: the session is complete (and paid, unless the payment is asynchronous). */
  pay(id: string, opts?: { async?: boolean }): StandInSession;
  /** The async payment went through (a bank debit cleared). */
  settle(id: string): StandInSession;
  close(): Promise<void>;
}

/** `a[b][0][c]=v` form fields as nested objects and arrays, as Stripe reads them. */
function nested(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const keys = name.split(/\[|\]\[|\]/).filter((k) => k !== '');
    let node: Record<string, unknown> = out;
    keys.forEach((k, i) => {
      if (i === keys.length - 1) node[k] = value;
      else node = (node[k] ??= {}) as Record<string, unknown>;
    });
  }
  return out;
}

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

export async function startStripe(): Promise<StripeStandIn> {
  const sessions = new Map<string, { session: StandInSession; key: string }>();
  const refunds: StripeStandIn['refunds'] = [];
  const requests: StripeStandIn['requests'] = [];
  let base = '';
  const error = (status: number, message: string) => ({ status, body: { error: { type: 'invalid_request_error', message } } });

  const answer = async (req: IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const path = (req.url ?? '').split('?')[0];
    requests.push({ method: req.method ?? '', path, key });
    if (!/^(sk|rk)_test_/.test(key)) return { status: 401, body: { error: { type: 'authentication_error', message: 'Invalid API Key provided' } } };
    const form = nested(await read(req));
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const lines = Object.values((form.line_items ?? {}) as Record<string, { quantity?: string; price_data?: { currency?: string; unit_amount?: string } }>);
      if (lines.length === 0) return error(400, 'line_items is required');
      const currency = lines[0].price_data?.currency ?? '';
      const session: StandInSession = {
        id: id('cs'),
        object: 'checkout.session',
        mode: String(form.mode),
        status: 'open',
        payment_status: 'unpaid',
        amount_total: lines.reduce((sum, l) => sum + Number(l.price_data?.unit_amount) * Number(l.quantity ?? 1), 0),
        currency,
        client_reference_id: (form.client_reference_id as string) ?? null,
        customer_email: (form.customer_email as string) ?? null,
        metadata: (form.metadata ?? {}) as Record<string, string>,
        payment_intent: null,
        url: '',
        success_url: String(form.success_url),
        cancel_url: String(form.cancel_url),
        livemode: false,
      };
      session.url = `${base}/pay/${session.id}`;
      sessions.set(session.id, { session, key });
      return { status: 200, body: session };
    }
    const m = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const s = sessions.get(m[1]);
      // Another account's session is unknown to this key, as on Stripe.
      if (!s || s.key !== key) return error(404, `No such checkout.session: '${m[1]}'`);
      return { status: 200, body: s.session };
    }
    if (req.method === 'POST' && path === '/v1/refunds') {
      const intent = String(form.payment_intent ?? '');
      const s = [...sessions.values()].find((x) => x.session.payment_intent === intent && x.key === key);
      if (!s) return error(404, `No such payment_intent: '${intent}'`);
      const amount = form.amount === undefined ? s.session.amount_total : Number(form.amount);
      const done = refunds.filter((r) => r.payment_intent === intent).reduce((sum, r) => sum + r.amount, 0);
      if (amount + done > s.session.amount_total) return error(400, 'Refund amount is greater than the unrefunded amount');
      const refund = { id: id('re'), payment_intent: intent, amount, key };
      refunds.push(refund);
      return { status: 200, body: { id: refund.id, object: 'refund', amount, currency: s.session.currency, payment_intent: intent, status: 'succeeded' } };
    }
    return error(404, `Unrecognized request URL (${req.method}: ${path})`);
  };

  const server: Server = createServer((req, res) => {
    answer(req).then(
      ({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(body));
      },
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

  const session = (sid: string) => {
    const s = sessions.get(sid);
    if (!s) throw new Error(`no session ${sid}`);
    return s.session;
  };
  return {
    base,
    sessions,
    refunds,
    requests,
    pay(sid, opts = {}) {
      const s = session(sid);
      s.status = 'complete';
      s.payment_intent ??= id('pi');
      s.payment_status = opts.async ? 'unpaid' : 'paid';
      return s;
    },
    settle(sid) {
      const s = session(sid);
      s.payment_status = 'paid';
      return s;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A webhook event's body and its Stripe-Signature header, signed with `secret` (at `timestamp`, default now). */
export function signedEvent(type: string, object: unknown, secret: string, opts: { id?: string; timestamp?: number } = {}): { body: string; signature: string; id: string } {
  const eventId = opts.id ?? id('evt');
  const body = JSON.stringify({ id: eventId, object: 'event', api_version: '2025-01-01', created: Math.floor(Date.now() / 1000), type, livemode: false, data: { object } });
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: opts.timestamp });
  return { body, signature, id: eventId };
}
