// One delivery attempt on the wire: a POST through request-filtering-agent, which refuses a connection
// to a private, loopback, link-local or otherwise non-public address after DNS resolution (unless
// WEBHOOKS_ALLOW_PRIVATE); redirects are never followed (a 3xx is a failed attempt), timeouts on
// connecting and on the whole exchange, and at most EXCERPT_BYTES of the answer read.
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/** What the delivery log keeps of an answer's body. */
export const EXCERPT_BYTES = 1024;

export interface SendSettings {
  allowPrivate: boolean;
  /** Connecting (DNS and TCP/TLS) must end within this. */
  connectTimeoutMs: number;
  /** The whole exchange, answer's head and excerpt included, must end within this. */
  timeoutMs: number;
}

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
}

export class WebhookSender {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly settings: SendSettings) {
    const options = { allowPrivateIPAddress: settings.allowPrivate, allowMetaIPAddress: false, keepAlive: false };
    this.httpAgent = new RequestFilteringHttpAgent(options);
    this.httpsAgent = new RequestFilteringHttpsAgent(options);
  }

  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const done = (r: Omit<SendResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(overall);
        resolve({ ...r, latencyMs: latency() });
      };
      const u = new URL(url);
      const client = u.protocol === 'https:' ? https : http;
      const req = client.request(
        u,
        {
          method: 'POST',
          agent: u.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'MediaPortfolioService-Webhooks/1' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () => {
            const status = res.statusCode ?? null;
            const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
            const ok = status !== null && status >= 200 && status < 300;
            const error = ok ? null : status !== null && status >= 300 && status < 400 ? `redirect to ${(res.headers.location ?? '').slice(0, 200)} not followed` : `HTTP ${status}`;
            done({ statusCode: status, excerpt: excerpt === '' ? null : excerpt, error });
            res.destroy();
          };
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            size += c.length;
            // Bounded: the rest of a large answer is not read.
            if (size >= EXCERPT_BYTES) finish();
          });
          res.on('end', finish);
          res.on('error', finish);
        },
      );
      const overall = setTimeout(() => {
        done({ statusCode: null, excerpt: null, error: `no answer within ${this.settings.timeoutMs} ms` });
        req.destroy();
      }, this.settings.timeoutMs);
      req.on('socket', (socket) => {
        const connect = setTimeout(() => {
          done({ statusCode: null, excerpt: null, error: `could not connect within ${this.settings.connectTimeoutMs} ms` });
          req.destroy();
        }, this.settings.connectTimeoutMs);
        socket.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connect));
        socket.once('close', () => clearTimeout(connect));
      });
      req.on('error', (err) => done({ statusCode: null, excerpt: null, error: describe(err) }));
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** An error as the log shows it: its message, one line, bounded (request-filtering-agent names the refused address). */
function describe(err: Error): string {
  return err.message.replace(/\s+/g, ' ').slice(0, 300);
}
