// The webhooks' lane (docs/integrations.md "Webhooks"): runners of its own in every worker process,
// apart from the job queue's interactive and background lanes, so a slow receiver never holds back a
// batch update or a rendition. Each runner claims one due delivery under a lease, signs it (Standard
// Webhooks), sends it, records the attempt, and schedules the next with exponential backoff and jitter.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { WebhookSettings } from '../config.js';
import type { WebhookEndpointRow } from '../database/schema.js';
import type { ClaimedDelivery, WebhooksRepository } from './repository.js';
import type { WebhookSender } from './sender.js';
import type { WebhooksService } from './service.js';

/** The wait before attempt `attempts + 1`: doubled each time from the base, capped, with jitter (half to all of it). */
export function backoffMs(attempts: number, s: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxMs'>, random = Math.random): number {
  const full = Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
  return Math.round(full * (0.5 + random() * 0.5));
}

export class WebhookDispatcher {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private stopping = false;
  private running: Array<Promise<void>> = [];
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly service: Pick<WebhooksService, 'secretOf'>,
    private readonly sender: WebhookSender,
    /** Tells the photographer their endpoint was disabled (a mail). */
    private readonly disabled: (endpoint: WebhookEndpointRow) => Promise<void>,
    private readonly log: Logger,
    private readonly settings: WebhookSettings,
  ) {}

  start(): void {
    if (this.running.length) return;
    this.stopping = false;
    this.running = Array.from({ length: this.settings.concurrency }, (_, i) => this.loop(`${this.id}/w${i}`));
  }

  /** Finishes the attempts in flight, then returns. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await Promise.all(this.running);
    this.running = [];
  }

  /** An event was written in this process: look now rather than at the next poll. */
  wake(): void {
    for (const w of [...this.wakers]) w();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  private get leaseMs(): number {
    return this.settings.connectTimeoutMs + this.settings.timeoutMs + 30_000;
  }

  private async loop(runner: string): Promise<void> {
    while (!this.stopping) {
      let claimed: ClaimedDelivery | undefined;
      try {
        claimed = await this.repo.claim(runner, this.leaseMs);
      } catch (err) {
        this.log.error({ err }, 'webhooks: claiming a delivery failed');
      }
      if (!claimed) {
        if (!this.stopping) await this.sleep(this.settings.pollMs);
        continue;
      }
      await this.deliver(runner, claimed).catch((err: unknown) => this.log.error({ err, delivery: claimed.delivery.uuid }, 'webhooks: delivery failed; its lease lets it be tried again'));
    }
  }

  private async deliver(runner: string, { delivery, endpoint, event }: ClaimedDelivery): Promise<void> {
    if (endpoint.enabled !== 1) {
      await this.repo.settle(delivery, runner, { statusCode: null, latencyMs: 0, excerpt: null, error: 'the endpoint is disabled' }, { state: 'failed' });
      return;
    }
    const now = new Date();
    let secret: string;
    try {
      secret = this.service.secretOf(endpoint);
    } catch {
      // Sealed with another PAYMENT_SECRETS_KEY (or none is set now): nothing can be signed; a failed attempt, retried.
      secret = '';
    }
    const result = secret
      ? await this.sender.send(endpoint.url, { 'webhook-id': event.uuid, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(event.uuid, now, event.payload) }, event.payload)
      : { statusCode: null, latencyMs: 0, excerpt: null, error: "the endpoint's secret cannot be opened: is PAYMENT_SECRETS_KEY the one it was sealed with?" };
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    if (ok) {
      await this.repo.settle(delivery, runner, result, { state: 'delivered' });
      await this.repo.succeeded(endpoint.id);
      return;
    }
    const age = Date.now() - Date.parse(delivery.created_at);
    const retryAt = new Date(Date.now() + backoffMs(delivery.attempts, this.settings));
    const last = age >= this.settings.retryWindowSeconds * 1000;
    await this.repo.settle(delivery, runner, result, last ? { state: 'failed' } : { state: 'pending', retryAt: retryAt.toISOString() });
    // The URL's query may hold a token of the receiver's: the log names the endpoint, not its address.
    this.log.info({ endpoint: endpoint.uuid, delivery: delivery.uuid, status: result.statusCode, error: result.error, attempt: delivery.attempts, last }, 'webhook attempt failed');
    const off = await this.repo.failed(endpoint.id, new Date(Date.now() - this.settings.disableAfterSeconds * 1000).toISOString());
    if (off) {
      this.log.warn({ endpoint: off.uuid, failingSince: off.failing_since }, 'webhook endpoint disabled after failing for too long');
      await this.disabled(off).catch((err: unknown) => this.log.error({ err, endpoint: off.uuid }, 'webhooks: the disabled mail failed'));
    }
  }
}
