// The deliverer: claims a due delivery (an append at the revision it read, so only one instance
// attempts it at a time), composes the body, signs and posts it (or, for a DIDComm message, has
// src/didcomm/ pack and post it), and records the outcome at the
// claim's revision. A claim lapses after the attempt timeout plus a grace period, so a crashed
// instance's deliveries are taken over. Once a delivery has ended (delivered, abandoned or
// undeliverable) the flow's data key is destroyed and that is recorded too.
import { randomUUID } from 'node:crypto';
import { isLeft, right } from 'fp-ts/lib/Either.js';
import { deliveriesWithDataToDestroy, dueDeliveries } from '../../projections/deliveries.js';
import { findTenantCallback } from '../../projections/tenantCallbacks.js';
import { delivery, deliveryStream, type AttemptOutcome, type CallbackRequest, type Command, type Delivery, type DeliveryState } from '../../streams/delivery.js';
import { tenant, tenantStream, type TenantCallback } from '../../streams/tenant.js';
import type { RetrySchedule } from '../config/callbacks.js';
import type { DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, loadStream, type Loaded } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Sqlite } from '../sqlite/connection.js';
import type { SendDidcomm, Sent } from '../didcomm/deliver.js';
import type { Egress } from '../egress/egress.js';
import { postCallback } from './post.js';
import type { Claim } from './record.js';
import { nextAttemptAt } from './schedule.js';
import { webhookHeaders } from './signature.js';
import { openSecret } from './tenantCallback.js';
import type { TenantSettings } from '../tenantIdentity/settings.js';

/** How long a claim outlives its attempt's timeout before another instance may take over. */
export const CLAIM_GRACE_MS = 10_000;

/** Who writes a delivery's claims and outcomes. */
const METADATA = { actor: 'callbacks' };

/** Ended deliveries whose data keys are destroyed per scan. */
const DESTROY_BATCH = 100;

export interface DelivererOptions {
  readonly store: EventStore;
  /** Read models: due deliveries and tenants' callback configuration. */
  readonly db: Sqlite;
  readonly dataKeys: DataKeys;
  readonly kek: Buffer;
  readonly schedule: RetrySchedule;
  readonly timeoutMs: number;
  readonly maxInFlight: number;
  readonly instanceId: string;
  readonly log: Logger;
  readonly metrics: Metrics['callbacks'];
  readonly now: () => Date;
  readonly sendDidcomm: SendDidcomm;
  /** The tenants' settings: their `callback_url` and `callback_secret`. */
  readonly settings: TenantSettings;
  /** The guard a callback URL a tenant chose itself is posted through (src/callbacks/post.ts). */
  readonly egress: Egress;
  /** The deployment's callback of a tenant whose settings set none (CALLBACK_URL: the bootstrap tenant's). */
  readonly defaultCallback: (tenantId: string) => { readonly url: string; readonly secret: string } | undefined;
}

type Composed = { readonly body: string } | { readonly gone: true };


export class Deliverer {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();
  /** Opened tenant secrets, keyed by tenant and sealed value (a new secret is a new key). */
  private readonly secrets = new Map<string, string>();

  constructor(private readonly options: DelivererOptions) {}

  /** A claim for an attempt starting now, or undefined when this instance is at its limit. */
  claimIfFree(now: Date): Claim | undefined {
    return this.inFlight.size >= this.options.maxInFlight ? undefined : this.claimAt(now);
  }

  private claimAt(now: Date): Claim {
    return { instanceId: this.options.instanceId, expiresAt: new Date(now.getTime() + this.options.timeoutMs + CLAIM_GRACE_MS) };
  }

  /** Attempts a delivery this instance has just recorded and claimed at `revision`. */
  dispatch(claimed: Delivery, revision: number): void {
    this.track(claimed.deliveryId, this.attempt(claimed, revision));
  }

  /** One pass: attempt what is due and unclaimed, then destroy the data keys of ended deliveries. */
  async scan(): Promise<void> {
    const free = this.options.maxInFlight - this.inFlight.size;
    if (free > 0) {
      const due = dueDeliveries(this.options.db, this.options.now(), free + this.inFlight.size);
      for (const id of due.filter((d) => !this.inFlight.has(d)).slice(0, free)) this.track(id, this.claimAndAttempt(id));
    }
    for (const id of deliveriesWithDataToDestroy(this.options.db, DESTROY_BATCH)) await this.destroyDataOf(id);
  }

  /** Interrupts attempts in flight (they are recorded as failed) and waits for them. */
  async stop(): Promise<void> {
    this.shutdown.abort();
    await Promise.all(this.inFlight.values());
  }

  private track(deliveryId: string, work: Promise<void>): void {
    this.inFlight.set(
      deliveryId,
      work
        // The claim lapses and the delivery is attempted again; nothing is lost.
        .catch((err: unknown) => this.options.log.error('callback attempt failed unexpectedly', { deliveryId, err }))
        .finally(() => {
          this.inFlight.delete(deliveryId);
          this.options.metrics.inFlight.set(this.inFlight.size);
        }),
    );
    this.options.metrics.inFlight.set(this.inFlight.size);
  }

  private async claimAndAttempt(deliveryId: string): Promise<void> {
    const loaded = await loadStream(this.options.store, delivery, deliveryStream(deliveryId));
    if (isLeft(loaded)) return;
    const now = this.options.now();
    const claim = this.claimAt(now);
    const command: Command = { type: 'ClaimDelivery', data: { deliveryId, claim: { instanceId: claim.instanceId, expiresAt: claim.expiresAt.toISOString() }, at: now.toISOString() } };
    const handled = await this.run(deliveryId, command, loaded.right);
    // Not due, or another instance claimed it first (or recorded an outcome): it is theirs.
    if (isLeft(handled) || handled.right.state.status === 'none') return;
    await this.attempt(handled.right.state, handled.right.revision);
  }

  private run(deliveryId: string, command: Command, loaded: Loaded<DeliveryState>) {
    return handleCommand(this.options.store, delivery, deliveryStream(deliveryId), command, { commandId: randomUUID(), metadata: METADATA, loaded });
  }

  private async attempt(claimed: Delivery, revision: number): Promise<void> {
    const { deliveryId, callback } = claimed;
    const log = this.options.log.child({ deliveryId, tenantId: callback.tenantId, status: callback.status });
    const attempt = claimed.attempts + 1;
    const started = this.options.now();
    const sent = callback.didcomm
      ? await this.options.sendDidcomm(callback.tenantId, callback.didcomm.messageId, this.shutdown.signal)
      : await this.sendCallback(deliveryId, callback, started, log);
    if (sent.kind === 'not_attempted') {
      await this.record(claimed, revision, sent, log);
      return;
    }
    const { outcome } = sent;
    const attemptedAt = started.toISOString();
    const attemptOutcome = { outcome: outcome.ok ? 'delivered' : outcome.reason };
    this.options.metrics.attempts.inc(attemptOutcome);
    this.options.metrics.attemptDuration.observe(attemptOutcome, outcome.durationMs / 1000);
    if (outcome.ok) {
      const { httpStatus, durationMs } = outcome;
      await this.record(claimed, revision, { kind: 'delivered', attempt, attemptedAt, httpStatus, durationMs }, log);
      return;
    }
    const next = nextAttemptAt(this.options.schedule, attempt, claimed.attemptLimit, this.options.now(), outcome.retryAfterMs);
    const nextAt = next?.toISOString() ?? null;
    log.warn('callback attempt failed', { attempt, reason: outcome.reason, httpStatus: outcome.httpStatus, nextAttemptAt: nextAt });
    const { reason, httpStatus, detail, durationMs } = outcome;
    await this.record(claimed, revision, { kind: 'failed', attempt, attemptedAt, reason, httpStatus, detail, durationMs, nextAttemptAt: nextAt }, log);
  }

  /** A callback's attempt: the body signed with the tenant's secret, posted to the tenant's URL. */
  private async sendCallback(deliveryId: string, callback: CallbackRequest, started: Date, log: Logger): Promise<Sent> {
    const target = await this.targetOf(callback.tenantId);
    if (!target) return { kind: 'not_attempted', reason: 'no_callback_url' };
    const composed = await this.compose(callback, log);
    if ('gone' in composed) return { kind: 'not_attempted', reason: 'data_gone' };
    const outcome = await postCallback({
      ...(target.chosenByTenant ? { egress: this.options.egress } : {}),
      url: target.url,
      body: composed.body,
      headers: webhookHeaders(target.secret, deliveryId, Math.floor(started.getTime() / 1000), composed.body),
      timeoutMs: this.options.timeoutMs,
      shutdown: this.shutdown.signal,
      now: this.options.now,
    });
    return { kind: 'attempted', outcome };
  }

  /** Records what the attempt came to; once the delivery has ended, destroys the flow's data key. */
  private async record(claimed: Delivery, revision: number, outcome: AttemptOutcome, log: Logger): Promise<void> {
    const command: Command = { type: 'RecordAttempt', data: { deliveryId: claimed.deliveryId, instanceId: this.options.instanceId, outcome, at: this.options.now().toISOString() } };
    const handled = await this.run(claimed.deliveryId, command, { state: claimed, expectedRevision: revision });
    if (isLeft(handled)) {
      // Our claim lapsed and another instance took the delivery over: its record wins.
      log.warn('callback outcome not recorded: the claim was lost', { error: handled.left.error._tag });
      return;
    }
    const last = handled.right.events[handled.right.events.length - 1]!;
    if (last.type === 'DeliveryAttemptFailed') {
      this.options.metrics.retriesScheduled.inc();
      return;
    }
    this.options.metrics.deliveriesEnded.inc({ outcome: last.type === 'DeliveryAbandoned' ? last.data.reason : 'delivered' });
    if (last.type === 'DeliveryDelivered') log.info('callback delivered', { attempt: last.data.attempt, httpStatus: last.data.httpStatus });
    if (last.type === 'DeliveryAbandoned') log.warn('callback abandoned', { reason: last.data.reason, attempts: claimed.attempts });
    await this.destroyData(claimed.deliveryId, { state: handled.right.state, expectedRevision: handled.right.revision });
  }

  private async destroyDataOf(deliveryId: string): Promise<void> {
    const loaded = await loadStream(this.options.store, delivery, deliveryStream(deliveryId));
    if (!isLeft(loaded)) await this.destroyData(deliveryId, loaded.right);
  }

  /** Destroys an ended delivery's data key first, then records it; does nothing when the decider says there is nothing to do. */
  private async destroyData(deliveryId: string, loaded: Loaded<DeliveryState>): Promise<void> {
    const command: Command = { type: 'DestroyData', data: { deliveryId, at: this.options.now().toISOString() } };
    // Losing this race only means the next scan records it (destroying again is a no-op).
    await handleCommand(this.options.store, delivery, deliveryStream(deliveryId), command, {
      commandId: randomUUID(),
      metadata: METADATA,
      loaded,
      beforeAppend: async (events) => {
        for (const e of events) if (e.type === 'DeliveryDataDestroyed') await this.options.dataKeys.destroy(e.data.ownerId);
        return right(undefined);
      },
    });
  }

  /**
   * The tenant's URL and opened secret: its settings; else the deployment's (CALLBACK_URL, the
   * bootstrap tenant's); else, in a store from before settings, the callback its tenant stream
   * records (the read model first; the stream when it has none yet). Before settings CALLBACK_URL
   * was written over the tenant stream's at every start, so it comes before that record.
   */
  /** Where the tenant's callbacks go; `chosenByTenant` when the tenant set the URL itself. */
  private async targetOf(tenantId: string): Promise<{ url: string; secret: string; chosenByTenant: boolean } | undefined> {
    const own = this.options.settings.of(tenantId).callback;
    const deployment = own ? undefined : this.options.defaultCallback(tenantId);
    if (deployment) return { ...deployment, chosenByTenant: false };
    let config: TenantCallback | null | undefined = own ?? findTenantCallback(this.options.db, tenantId);
    if (!config) {
      const loaded = await loadStream(this.options.store, tenant, tenantStream(tenantId));
      config = isLeft(loaded) || loaded.right.state.status === 'none' ? null : loaded.right.state.callback;
    }
    if (!config) return undefined;
    const cacheKey = `${tenantId}/${config.secret.ciphertext}`;
    let secret = this.secrets.get(cacheKey);
    if (secret === undefined) {
      secret = openSecret(this.options.kek, tenantId, config.secret);
      this.secrets.set(cacheKey, secret);
    }
    // Set through settings by the tenant, or by the operator (`ops callbacks set`, or before settings existed).
    return { url: config.url, secret, chosenByTenant: own !== undefined && !own.chosenByOperator };
  }

  /** The body as the spec defines it: the request's body with the opened sealed fields merged in. */
  private async compose(callback: CallbackRequest, log: Logger): Promise<Composed> {
    if (!callback.sealed) return { body: JSON.stringify(callback.body) };
    const { ownerId, purpose, value } = callback.sealed;
    const key = await this.options.dataKeys.find(ownerId);
    if (!key) return { gone: true };
    let opened: unknown;
    try {
      opened = key.open(value, purpose);
    } catch (err) {
      log.error('sealed callback fields do not open with their data key', { err });
      return { gone: true };
    }
    if (typeof opened !== 'object' || opened === null || Array.isArray(opened)) {
      log.error('sealed callback fields are not an object', {});
      return { gone: true };
    }
    return { body: JSON.stringify({ ...callback.body, ...opened }) };
  }
}

