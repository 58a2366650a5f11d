// One attempt of a DIDComm message's delivery (the callback deliverer claims, retries and records
// it, src/callbacks/deliver.ts): read the message, open its recipient, resolve the recipient's
// DID, pack the message as the tenant (authcrypt, wrapped for mediators) and POST it to the
// recipient's service endpoint. Failures are failed attempts, retried on the schedule; only a
// message whose recipient can no longer be opened is not attempted. Nothing logged or recorded
// names the recipient: the reasons are error codes and fixed sentences.
import { performance } from 'node:perf_hooks';
import { isLeft, left, right } from 'fp-ts/lib/Either.js';
import { didcommKeyOwner, didcommMessage, didcommStream, RECIPIENT, SealedRecipient } from '../../streams/didcommMessage.js';
import type { FailureReason } from '../../streams/delivery.js';
import { attemptOfEgress, MAX_RESPONSE_BYTES, type AttemptOutcome } from '../http/outboundAttempt.js';
import { openFor, type DataKeys } from '../crypto/dataKeys.js';
import { loadStream } from '../eventstore/handle.js';
import type { EventStore } from '../eventstore/port.js';
import type { Egress } from '../egress/egress.js';
import { checkEndpointUrl } from './endpointSafety.js';
import { ENCRYPTED_MEDIA_TYPE } from './jwe.js';
import { KEY_AGREEMENT_FRAGMENT, tenantKeyAgreementKey } from './keyAgreement.js';
import { pack, type SentMessage } from './pack.js';
import { resolveDid, resolveKey, type ResolveOptions } from './resolve.js';

/** What one attempt did: posted (and how that went), or nothing to post. */
export type Sent =
  | { readonly kind: 'attempted'; readonly outcome: AttemptOutcome }
  | { readonly kind: 'not_attempted'; readonly reason: 'no_callback_url' | 'data_gone' };

/** Packs and posts a tenant's DIDComm message. */
export type SendDidcomm = (tenantId: string, messageId: string, shutdown: AbortSignal) => Promise<Sent>;

/** The largest did:web document read. */
const MAX_DID_DOCUMENT_BYTES = 65_536;

export interface DidcommDeliveryOptions {
  readonly store: EventStore;
  readonly dataKeys: Pick<DataKeys, 'find'>;
  readonly kek: Buffer;
  /** The way out for every address a DID document names. */
  readonly egress: Egress;
  /** Bound on the whole attempt: reading did:web documents and the POST together. */
  readonly timeoutMs: number;
  readonly now: () => Date;
}

const items = (value: unknown): readonly Record<string, unknown>[] => {
  const list = typeof value === 'object' && value !== null ? (value as { items?: unknown }).items : undefined;
  return Array.isArray(list) ? (list as Record<string, unknown>[]) : [];
};


export const didcommSender = (options: DidcommDeliveryOptions): SendDidcomm => async (tenantId, messageId, shutdown): Promise<Sent> => {
  const started = performance.now();
  // One deadline for every exchange of the attempt, so it ends within the claim the deliverer took.
  const remainingMs = (): number => Math.max(1, Math.round(options.timeoutMs - (performance.now() - started)));
  const failed = (reason: FailureReason, detail: string, httpStatus: number | null = null, retryAfterMs?: number): Sent => ({
    kind: 'attempted',
    outcome: { ok: false, reason, httpStatus, detail, retryAfterMs, durationMs: Math.round((performance.now() - started) * 10) / 10 },
  });

  const loaded = await loadStream(options.store, didcommMessage, didcommStream(messageId));
  if (isLeft(loaded) || loaded.right.state.status === 'none') return { kind: 'not_attempted', reason: 'data_gone' };
  const message = loaded.right.state.resource;
  const key = await options.dataKeys.find(didcommKeyOwner(messageId));
  const sealed = message.data['to'];
  if (!key || !SealedRecipient.is(sealed)) return { kind: 'not_attempted', reason: 'data_gone' };
  let to: string;
  try {
    to = openFor(key, RECIPIENT, sealed);
  } catch {
    // Sealed with another key or purpose, or not a recipient: it will never open, so retrying cannot help.
    return { kind: 'not_attempted', reason: 'data_gone' };
  }

  const resolveOptions: ResolveOptions = {
    allowHttp: options.egress.policy.allowPrivateNetworks,
    fetchDocument: async (url) => {
      const checked = checkEndpointUrl(url.href, options.egress.policy);
      if (isLeft(checked)) return left(checked.left.detail);
      const answer = await options.egress.request({ method: 'GET', url: checked.right, headers: { accept: 'application/did+json, application/json' }, timeoutMs: remainingMs(), maxBytes: MAX_DID_DOCUMENT_BYTES, signal: shutdown });
      if (isLeft(answer)) return left(answer.left.detail);
      if (answer.right.status !== 200) return left(`answered HTTP ${answer.right.status}`);
      if (answer.right.truncated) return left(`is larger than ${MAX_DID_DOCUMENT_BYTES} bytes`);
      try {
        return right(JSON.parse(answer.right.body.toString('utf8')) as unknown);
      } catch {
        return left('is not JSON');
      }
    },
  };
  const recipient = await resolveDid(to, resolveOptions);
  if (isLeft(recipient)) return failed('unresolvable', recipient.left._tag === 'UnsupportedDidMethod' ? 'unsupported DID method' : recipient.left.reason);

  const from = String(message.data['from']);
  const sent: SentMessage = {
    messageId,
    from,
    to,
    sentAt: message.createdAt,
    credentials: items(message.data['credentials']),
    files: items(message.data['files']),
    presentations: items(message.data['presentations']),
  };
  const sender = { kid: `${from}#${KEY_AGREEMENT_FRAGMENT}`, privateKey: tenantKeyAgreementKey(options.kek, tenantId) };
  const packed = await pack(sent, sender, recipient.right, (didUrl) => resolveKey(didUrl, resolveOptions));
  if (isLeft(packed)) return failed('unresolvable', packed.left._tag === 'UnsupportedDidMethod' ? 'unsupported DID method of a routing key' : packed.left.reason);

  const endpoint = checkEndpointUrl(packed.right.uri, options.egress.policy);
  if (isLeft(endpoint)) return failed('endpoint_refused', `the endpoint ${endpoint.left.detail}`);
  const answer = await options.egress.request({
    method: 'POST',
    url: endpoint.right,
    headers: { 'content-type': ENCRYPTED_MEDIA_TYPE },
    body: JSON.stringify(packed.right.jwe),
    timeoutMs: remainingMs(),
    maxBytes: MAX_RESPONSE_BYTES,
    signal: shutdown,
  });
  const durationMs = Math.round((performance.now() - started) * 10) / 10;
  return { kind: 'attempted', outcome: attemptOfEgress(answer, { target: 'the endpoint', timeoutMs: options.timeoutMs, shutdown, durationMs, now: options.now() }) };
};
