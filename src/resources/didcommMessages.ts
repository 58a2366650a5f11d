// The `didcomm-messages` kind: `POST /didcomm-messages` records a message from the tenant's DID
// to a recipient, embedding the tenant's credentials, files and presentations it names (and,
// unless `disable_transitive_closure`, the credentials those credentials link to). A recipient the
// connector could never send to is refused here; a recorded message is delivered like a callback
// (src/didcomm/).
import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { findLatest } from '../../projections/resources.js';
import { CREDENTIAL_KIND } from '../../streams/credential.js';
import { DIDCOMM_KIND, didcommKeyOwner, didcommStream, didcommMessage, RECIPIENT, SealedRecipient, type DidcommMessageEvent, type SendDidcommMessage } from '../../streams/didcommMessage.js';
import { FILE_KIND } from '../../streams/file.js';
import { PRESENTATION_KIND } from '../../streams/verifiablePresentation.js';
import { StringMap, type Envelope, type ResourceData } from '../../streams/resource.js';
import { openFor, sealFor, type DataKeys } from '../crypto/dataKeys.js';
import { deliveryOfMessage } from '../didcomm/deliveryState.js';
import { checkRecipient, refusalMessage } from '../didcomm/recipient.js';
import { readJson } from '../http/body.js';
import { NonEmptyString, Uuid } from '../http/codecs.js';
import { HttpError, invalidValues, problem, type FieldError } from '../http/problem.js';
import { decode } from '../http/validate.js';
import type { Sqlite } from '../sqlite/connection.js';
import { principalOf, requireScope } from '../tenancy/authenticate.js';
import { JSON_LIMIT, type ResourcesContext } from './context.js';
import { wireEnvelope } from './envelope.js';
import type { KindCommand } from '../../streams/resource.js';
import type { VersionedKind } from './kind.js';
import { ENVELOPE_ONLY } from './search.js';
import { createResource, versionedRoutes } from './routes.js';
import { tenantDid } from './tenantDid.js';
import { isRecord } from '../../streams/kernel.js';

/** Bound on the credentials one message embeds through links. */
const MAX_CLOSURE = 100;

export const didcommKind = (deps: Pick<ResourcesContext, 'dataKeys'> & { readonly runner: Pick<ResourcesContext['runner'], 'db'> }): VersionedKind<DidcommMessageEvent, KindCommand<SendDidcommMessage, never>> => ({
  path: 'didcomm-messages',
  name: DIDCOMM_KIND.name,
  scope: 'resources',
  decider: didcommMessage,
  streamOf: didcommStream,
  search: ENVELOPE_ONLY,
  render: async (envelope) => {
    const sealed = envelope.data['to'];
    const key = await deps.dataKeys.find(didcommKeyOwner(envelope.id));
    const to = key && SealedRecipient.is(sealed) ? openFor(key, RECIPIENT, sealed) : null;
    const { transport: _, ...data } = envelope.data;
    return { ...envelope, data: { ...data, to, delivery: await deliveryOfMessage(deps.runner.db, envelope) } };
  },
});

const SendBody = t.intersection([
  t.type({
    data: t.intersection([
      t.type({ to: NonEmptyString, key_id: Uuid }),
      t.partial({ credentials: t.array(Uuid), files: t.array(Uuid), presentations: t.array(Uuid), disable_transitive_closure: t.boolean }),
    ]),
  }),
  t.partial({ annotations: StringMap, labels: StringMap }),
]);

type SendRequest = t.TypeOf<typeof SendBody>;

/** The ids the message names that are no live resource of the tenant, each located in the body. */
export type ReferencesMissing = { readonly _tag: 'ReferencesMissing'; readonly missing: readonly FieldError[] };

/** What sending reads and seals with: the read models, the data keys, the tenant DID's base. */
export interface SendDeps {
  readonly db: Sqlite;
  readonly dataKeys: Pick<DataKeys, 'issue'>;
  readonly publicUrl: string;
  readonly now: () => Date;
}

/**
 * The sending of a new message embedding what it names (and, unless
 * `disable_transitive_closure`, what those credentials link to), its recipient sealed with a data
 * key issued for it; ReferencesMissing when a named resource is not a live one of the tenant.
 */
export const sendDidcommMessage = async (deps: SendDeps, tenantId: string, body: SendRequest): Promise<Either<ReferencesMissing, SendDidcommMessage>> => {
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

export const didcommRoutes = (router: Router, deps: ResourcesContext): void => {
  const kind = didcommKind(deps);

  router.post('/didcomm-messages', requireScope(kind.scope), async (ctx) => {
    const body = decode(SendBody, await readJson(ctx, { limitBytes: JSON_LIMIT }), 'body');
    const tenantId = principalOf(ctx).tenantId;
    const recipient = await checkRecipient(body.data.to, { allowPrivateNetworks: deps.config.egressAllowPrivateNetworks });
    if (isLeft(recipient)) throw new HttpError(invalidValues([{ location: 'body.data.to', message: refusalMessage(recipient.left), value: undefined }]));
    await deps.idempotent(ctx, body, async () => {
      const sent = await sendDidcommMessage({ db: deps.runner.db, dataKeys: deps.dataKeys, publicUrl: deps.config.publicUrl, now: deps.now }, tenantId, body);
      if (isLeft(sent)) throw new HttpError(problem(404, '/problems/not-found', 'Not found', 'A referenced resource does not exist in this tenant.', sent.left.missing));
      return createResource(deps, kind, ctx, sent.right.data.messageId, sent.right);
    });
  });

  versionedRoutes(router, kind, deps);
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
