// Sending a DIDComm message (the use case, no HTTP): the request's wire schema, the recipient's
// check (one the connector could never send to is refused here), and the SendDidcommMessage
// embedding the tenant's credentials, files and presentations it names (and, unless
// `disable_transitive_closure`, the credentials those credentials link to), from the tenant's DID.
// The recorded message is delivered like a callback (src/didcomm/).
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import { CREDENTIAL_KIND } from '../../streams/credential.js';
import { didcommKeyOwner, RECIPIENT, type SendDidcommMessage } from '../../streams/didcommMessage.js';
import { FILE_KIND } from '../../streams/file.js';
import { PRESENTATION_KIND } from '../../streams/verifiablePresentation.js';
import { StringMap, type Envelope, type ResourceData } from '../../streams/resource.js';
import { isRecord } from '../../streams/kernel.js';
import { sealFor, type DataKeys } from '../crypto/dataKeys.js';
import { checkRecipient, type RecipientRefused } from '../didcomm/recipient.js';
import { NonEmptyString, Uuid } from '../http/codecs.js';
import type { FieldError } from '../http/problem.js';
import type { Sqlite } from '../sqlite/connection.js';
import { tenantDid } from './didDocument.js';
import { wireEnvelope } from './envelope.js';

/** Bound on the credentials one message embeds through links. */
const MAX_CLOSURE = 100;

/** `POST /didcomm-messages`: the request's body. */
export const SendBody = t.intersection([
  t.type({
    data: t.intersection([
      t.type({ to: NonEmptyString, key_id: Uuid }),
      t.partial({ credentials: t.array(Uuid), files: t.array(Uuid), presentations: t.array(Uuid), disable_transitive_closure: t.boolean }),
    ]),
  }),
  t.partial({ annotations: StringMap, labels: StringMap }),
]);

export type SendRequest = t.TypeOf<typeof SendBody>;

/** Why a message is not sent: its recipient is one the connector could never send to (400), or the ids it names that are no live resource of the tenant, each located in the body (404). */
export type SendRefused =
  | { readonly _tag: 'RecipientRefused'; readonly refused: RecipientRefused }
  | { readonly _tag: 'ReferencesMissing'; readonly missing: readonly FieldError[] };

/** What sending reads and seals with: the read models, the data keys, the tenant DID's base, the egress policy. */
export interface SendDeps {
  readonly db: Sqlite;
  /** EGRESS_ALLOW_PRIVATE_NETWORKS: whether a recipient's endpoint may be on a private network. */
  readonly allowPrivateNetworks: boolean;
  readonly dataKeys: Pick<DataKeys, 'issue'>;
  readonly publicUrl: string;
  readonly now: () => Date;
}

/**
 * The sending of a new message embedding what it names (and, unless
 * `disable_transitive_closure`, what those credentials link to), its recipient sealed with a data
 * key issued for it; RecipientRefused for a recipient the connector could never send to,
 * ReferencesMissing when a named resource is not a live one of the tenant.
 */
export const sendDidcommMessage = async (deps: SendDeps, tenantId: string, body: SendRequest): Promise<Either<SendRefused, SendDidcommMessage>> => {
  const recipient = await checkRecipient(body.data.to, { allowPrivateNetworks: deps.allowPrivateNetworks });
  if (isLeft(recipient)) return left({ _tag: 'RecipientRefused', refused: recipient.left });
  const missing: FieldError[] = [];
  const live = (kindName: string, ids: readonly string[], field: string): Envelope[] => {
    const found: Envelope[] = [];
    for (const [i, id] of ids.entries()) {
      const envelope = findLatest(deps.db, { tenantId, kind: kindName, id: id.toLowerCase() });
      if (envelope && envelope.deletedAt === null) found.push(envelope);
      else missing.push({ location: `body.data.${field}[${i}]`, message: `no ${kindName} of this tenant has this id`, value: id });
    }
    return found;
  };
  const credentials = live(CREDENTIAL_KIND.name, body.data.credentials ?? [], 'credentials');
  const files = live(FILE_KIND.name, body.data.files ?? [], 'files');
  const presentations = live(PRESENTATION_KIND.name, body.data.presentations ?? [], 'presentations');
  if (missing.length > 0) return left({ _tag: 'ReferencesMissing', missing });
  if (!body.data.disable_transitive_closure) closeOverLinks(deps.db, tenantId, credentials);

  const messageId = randomUUID();
  const key = await deps.dataKeys.issue(didcommKeyOwner(messageId));
  if (isLeft(key)) throw new Error(`didcomm data key: ${key.left._tag}`);
  const items = (envelopes: readonly Envelope[]): { items: ResourceData[] } => ({ items: envelopes.map((e) => wireEnvelope(e)) });
  return right({
    type: 'SendDidcommMessage',
    data: {
      messageId,
      tenantId,
      from: tenantDid(deps.publicUrl, tenantId),
      to: sealFor(key.right, RECIPIENT, body.data.to),
      keyId: body.data.key_id.toLowerCase(),
      credentials: items(credentials),
      files: items(files),
      presentations: items(presentations),
      annotations: body.annotations ?? {},
      labels: body.labels ?? {},
      at: deps.now().toISOString(),
      transport: 'didcomm/v2',
    },
  });
};

/** Adds, in place, the tenant's live credentials linked from those already included, transitively. */
const closeOverLinks = (db: Sqlite, tenantId: string, credentials: Envelope[]): void => {
  const seen = new Set(credentials.map((c) => c.id));
  for (let i = 0; i < credentials.length && credentials.length < MAX_CLOSURE; i++) {
    const refs = credentials[i]!.data['linked_credential_refs'];
    for (const ref of Array.isArray(refs) ? refs : []) {
      const id = isRecord(ref) ? ref['resource_id'] : undefined;
      if (typeof id !== 'string' || seen.has(id) || credentials.length >= MAX_CLOSURE) continue;
      seen.add(id);
      const linked = findLatest(db, { tenantId, kind: CREDENTIAL_KIND.name, id });
      if (linked && linked.deletedAt === null) credentials.push(linked);
    }
  }
};
