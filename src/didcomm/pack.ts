// A sent message as DIDComm v2: the plaintext message (DIF DIDComm Messaging v2, "Plaintext
// Message Structure"), encrypted with authcrypt to every X25519 key-agreement key of the recipient
// as the tenant, then, when the chosen service names mediators (`routingKeys`), wrapped once per
// mediator in a routing `forward` message anoncrypted to that mediator's key, the innermost naming
// the recipient as `next` (DIF DIDComm Messaging v2, "Routing Protocol 2.0").
import { randomUUID } from 'node:crypto';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { anoncrypt, authcrypt, type GeneralJwe, type RecipientKey, type SenderKey } from './jwe.js';
import type { DidNotResolved, DidRefused, MessagingService, ResolvedDid } from './resolve.js';

/** The message type of every message the connector sends: resources of the tenant, each an attachment. */
const RESOURCES_MESSAGE_TYPE = 'https://eudi-connector.invalid/didcomm/resource-transfer/1.0/send';

const FORWARD_MESSAGE_TYPE = 'https://didcomm.org/routing/2.0/forward';

/**
 * Bounds on what a recipient's document may ask of one attempt. Each forward wraps the whole
 * encrypted message, which grows by a third each time, so routing keys are few in practice and
 * must be few here; keys are bounded so a document cannot make every attempt costly.
 */
const MAX_ROUTING_KEYS = 4;
const MAX_RECIPIENT_KEYS = 16;

const PLAIN_MEDIA_TYPE = 'application/didcomm-plain+json';

/** A resource envelope as the message embeds it (its `id`, `kind.name`, `data.digest_multibase`...). */
type Embedded = Readonly<Record<string, unknown>>;

export interface SentMessage {
  readonly messageId: string;
  readonly from: string;
  readonly to: string;
  readonly sentAt: string;
  readonly credentials: readonly Embedded[];
  readonly files: readonly Embedded[];
  readonly presentations: readonly Embedded[];
}

const summary = (e: Embedded): { id: unknown; digest_multibase: unknown } => {
  const data = e['data'];
  const digest = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['digest_multibase'] : undefined;
  return { id: e['id'], digest_multibase: digest ?? null };
};

/**
 * The plaintext: `id` the message's id (so every retry and re-send carries the same one), `body`
 * naming each embedded resource by kind, id and digest, and one attachment per resource holding
 * its envelope as JSON.
 */
const plaintextMessage = (sent: SentMessage): Record<string, unknown> => {
  const kinds = { credentials: sent.credentials, files: sent.files, presentations: sent.presentations };
  return {
    id: sent.messageId,
    typ: PLAIN_MEDIA_TYPE,
    type: RESOURCES_MESSAGE_TYPE,
    from: sent.from,
    to: [sent.to],
    created_time: Math.floor(Date.parse(sent.sentAt) / 1000),
    body: Object.fromEntries(Object.entries(kinds).map(([kind, items]) => [kind, items.map(summary)])),
    attachments: Object.values(kinds).flatMap((items) =>
      items.map((e) => ({ id: String(e['id']), media_type: 'application/json', data: { json: e } })),
    ),
  };
};

export interface Packed {
  /** Where the message is posted: the service endpoint. */
  readonly uri: string;
  readonly jwe: GeneralJwe;
}

export type ResolveKey = (didUrl: string) => Promise<Either<DidRefused | DidNotResolved, RecipientKey>>;

/** The recipient's first DIDComm v2 messaging service over http(s). */
const messagingService = (recipient: ResolvedDid): MessagingService | undefined =>
  recipient.services.find((s) => /^https?:\/\//i.test(s.uri) && (s.accept === undefined || s.accept.includes('didcomm/v2')));

/** Why the connector cannot pack for this recipient, or its service when it can. */
export const usableService = (recipient: ResolvedDid): Either<DidNotResolved, MessagingService> => {
  const refuse = (reason: string): Either<DidNotResolved, never> => left({ _tag: 'DidNotResolved', reason });
  if (recipient.keyAgreement.length === 0) return refuse('the recipient has no X25519 key-agreement key');
  if (recipient.keyAgreement.length > MAX_RECIPIENT_KEYS) return refuse(`the recipient has more than ${MAX_RECIPIENT_KEYS} key-agreement keys`);
  const service = messagingService(recipient);
  if (!service) return refuse('the recipient has no DIDComm v2 messaging service with an http(s) endpoint');
  if (service.routingKeys.length > MAX_ROUTING_KEYS) return refuse(`the recipient's service has more than ${MAX_ROUTING_KEYS} routing keys`);
  return right(service);
};

export const pack = async (
  sent: SentMessage,
  sender: SenderKey,
  recipient: ResolvedDid,
  resolveKey: ResolveKey,
): Promise<Either<DidRefused | DidNotResolved, Packed>> => {
  const usable = usableService(recipient);
  if (usable._tag === 'Left') return usable;
  const service = usable.right;
  let jwe = authcrypt(Buffer.from(JSON.stringify(plaintextMessage(sent))), recipient.keyAgreement, sender);
  // The innermost forward goes to the last mediator and names the recipient; each outer one names the mediator inside it.
  const nexts = [...service.routingKeys.slice(1), recipient.id];
  for (let i = service.routingKeys.length - 1; i >= 0; i--) {
    const key = await resolveKey(service.routingKeys[i]!);
    if (key._tag === 'Left') return key;
    const forward = {
      id: randomUUID(),
      typ: PLAIN_MEDIA_TYPE,
      type: FORWARD_MESSAGE_TYPE,
      to: [key.right.kid.split('#')[0]],
      body: { next: nexts[i] },
      attachments: [{ data: { json: jwe } }],
    };
    jwe = anoncrypt(Buffer.from(JSON.stringify(forward)), [key.right]);
  }
  return right({ uri: service.uri, jwe });
};
