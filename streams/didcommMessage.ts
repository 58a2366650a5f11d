// Stream category `didcomm`: one stream per DIDComm message a tenant sends,
// `didcomm-<message id>`. Every event is one revision of its envelope (streams/resource.ts). The
// recipient (`to`, usually a holder's DID) is personal data: it is sealed with the message's own
// data key (owner `didcomm.<message id>`). The embedded resources are the tenant's credentials
// and files as they were when the message was sent (their envelopes, which carry no claims).
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { sealedFor, sealedPurpose } from './dataKey.js';
import { eventCodec } from './event.js';
import { JsonObject, sharedEvents, StringMap, resourceKind, type ResourceChange } from './resource.js';

export const category = 'didcomm';
export const didcommStream = (messageId: string): string => streamName(category, messageId);
export const didcommKeyOwner = (messageId: string): string => `didcomm.${messageId}`;
/** The purpose the recipient (a DID) is sealed for, with the message's data key. */
export const RECIPIENT = sealedPurpose('didcomm-recipient', t.string);
/** The recipient, sealed. */
export const SealedRecipient = sealedFor(RECIPIENT);

export const DIDCOMM_KIND = { name: 'didcomm-message', version: 1 } as const;

const Items = t.type({ items: t.array(JsonObject) });

export const DidcommMessageSent = eventCodec(
  'DidcommMessageSent',
  t.type({
    messageId: t.string,
    tenantId: t.string,
    from: t.string,
    to: SealedRecipient,
    /** The sending key named by the request (recorded; the tenant's DIDComm sender key is `#key-agreement-1`). */
    keyId: t.string,
    credentials: Items,
    files: Items,
    presentations: Items,
    annotations: StringMap,
    labels: StringMap,
    sentAt: t.string,
    /**
     * `didcomm/v2`: the message is packed and delivered to the recipient (a `delivery-` stream,
     * src/didcomm/). Messages recorded before that transport existed have none: only recorded.
     */
    transport: t.union([t.literal('didcomm/v2'), t.undefined]),
  }),
);

/** The resource API's shared changes: DidcommMessageAnnotationsUpdated, DidcommMessageLabelsUpdated, DidcommMessageDeleted, DidcommMessageRestored, each `{messageId, ...}` (streams/resource.ts). */
const shared = sharedEvents('DidcommMessage', 'messageId');

/** Every event a DIDComm message stream can hold. */
export const DidcommMessageEvent = t.union([DidcommMessageSent, ...shared.codecs]);
export type DidcommMessageEvent = t.TypeOf<typeof DidcommMessageEvent>;

export const didcommResourceChange = (event: DidcommMessageEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  const d = event.data;
  return {
    op: 'created',
    id: d.messageId,
    tenantId: d.tenantId,
    kind: DIDCOMM_KIND,
    at: d.sentAt,
    annotations: d.annotations,
    labels: d.labels,
    // `transport` is kept for the read side to tell a delivered message from one only recorded.
    data: { from: d.from, to: d.to, credentials: d.credentials, files: d.files, presentations: d.presentations, ...(d.transport ? { transport: d.transport } : {}) },
  };
};

type Created = t.TypeOf<typeof DidcommMessageSent>['data'];

/** POST /didcomm-messages: the message as sent, its recipient sealed. */
export type SendDidcommMessage = { readonly type: 'SendDidcommMessage'; readonly data: Omit<Created, 'sentAt'> & { readonly at: string } };

/** The didcommMessage kind's rules: created once, then the changes every kind shares (streams/resource.ts). */
export const didcommMessage = resourceKind<DidcommMessageEvent, SendDidcommMessage>({
  category,
  codec: DidcommMessageEvent,
  changeOf: didcommResourceChange,
  create: { type: 'SendDidcommMessage', created: ({ data: { at, ...created } }) => ({ type: 'DidcommMessageSent', data: { ...created, sentAt: at } }) },
  shared: shared.events,
});
