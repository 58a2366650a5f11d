// The resource kinds' decider (streams/resource.ts) in given / when / then form, on the schema
// kind, the one with every shared change, a data change and a frozen state: the events a
// resource stream already holds, a command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { etagOf, MAX_REVISION, type ResourceCommand, type ResourceError, type Update } from '../streams/resource.js';
import { schemaResource, type SchemaEvent, type SchemaState } from '../streams/schema.js';
import { draftResource, type DraftEvent } from '../streams/draft.js';

const ID = '5b0c4a52-5f0c-4d3e-9b1a-2f6f7f1f9c10';
const TENANT = 'tenant-1';
const AT = '2026-05-01T10:00:00.000Z';
const LATER = '2026-05-02T10:00:00.000Z';
const { decide, evolve, initialState } = schemaResource;

const stateOf = (given: readonly SchemaEvent[]): SchemaState => given.reduce(evolve, initialState);
const scenario = (given: readonly SchemaEvent[], when: ResourceCommand<SchemaEvent>): Either<ResourceError, readonly SchemaEvent[]> => decide(when, stateOf(given));

const created: SchemaEvent = {
  type: 'SchemaCreated',
  data: { schemaId: ID, tenantId: TENANT, slug: 'pid', version: '1', schema: { type: 'object' }, annotations: {}, labels: {}, createdAt: AT },
};
const create: ResourceCommand<SchemaEvent> = { type: 'CreateResource', data: { created } };
const deleted: SchemaEvent = { type: 'SchemaDeleted', data: { schemaId: ID, deletedAt: LATER } };
const restored: SchemaEvent = { type: 'SchemaRestored', data: { schemaId: ID, restoredAt: LATER } };
const published: SchemaEvent = { type: 'SchemaPublished', data: { schemaId: ID, url: 'https://pub.example/published-schemas/x', publishedAt: LATER } };

/** The change as a client sends it, If-Match naming the etag of `revision` (the current one by default). */
const update = (given: readonly SchemaEvent[], change: Update, options: { revision?: number; tenantId?: string } = {}): ResourceCommand<SchemaEvent> => ({
  type: 'UpdateResource',
  data: { tenantId: options.tenantId ?? TENANT, id: ID, ifMatch: (tag) => tag === etagOf(ID, options.revision ?? given.length), update: change, at: LATER },
});

test('given nothing, when a resource is created, then its first event; given it, then ResourceExists', (t) => {
  t.deepEqual(scenario([], create), right([created]));
  t.deepEqual(scenario([created], create), left({ _tag: 'ResourceExists' }));
  t.like(schemaResource.envelopeOf(stateOf([created])), { id: ID, tenantId: TENANT, revision: 1, deletedAt: null });
});

test('given a resource, when its annotations or labels change, then the kind records them as the next revision', (t) => {
  const given = [created];
  t.deepEqual(scenario(given, update(given, { op: 'annotations', annotations: { note: 'x' } })), right([{ type: 'SchemaAnnotationsUpdated', data: { schemaId: ID, annotations: { note: 'x' }, updatedAt: LATER } }]));
  t.deepEqual(scenario(given, update(given, { op: 'labels', labels: { team: 'a' } })), right([{ type: 'SchemaLabelsUpdated', data: { schemaId: ID, labels: { team: 'a' }, updatedAt: LATER } }]));
});

test('given a live resource, when deleted, then deleted; given it deleted, when restored, then restored', (t) => {
  t.deepEqual(scenario([created], update([created], { op: 'delete' })), right([deleted]));
  const gone = [created, deleted];
  t.deepEqual(scenario(gone, update(gone, { op: 'restore' })), right([restored]));
  t.like(schemaResource.envelopeOf(stateOf(gone)), { revision: 2, deletedAt: LATER });
  t.like(schemaResource.envelopeOf(stateOf([...gone, restored])), { revision: 3, deletedAt: null });
});

test('given a deleted resource, when changed or deleted again, then Conflict deleted', (t) => {
  const gone = [created, deleted];
  t.deepEqual(scenario(gone, update(gone, { op: 'labels', labels: {} })), left({ _tag: 'Conflict', reason: 'deleted' }));
  t.deepEqual(scenario(gone, update(gone, { op: 'delete' })), left({ _tag: 'Conflict', reason: 'deleted' }));
});

test('given a live resource, when restored, then Conflict not_deleted', (t) => {
  t.deepEqual(scenario([created], update([created], { op: 'restore' })), left({ _tag: 'Conflict', reason: 'not_deleted' }));
});

test('given no resource, or another tenant\'s, when changed, then NotFound whatever the etag', (t) => {
  t.deepEqual(scenario([], update([], { op: 'delete' })), left({ _tag: 'NotFound' }));
  t.deepEqual(scenario([created], update([created], { op: 'delete' }, { tenantId: 'tenant-2' })), left({ _tag: 'NotFound' }));
  t.deepEqual(scenario([created], update([created], { op: 'delete' }, { tenantId: 'tenant-2', revision: 7 })), left({ _tag: 'NotFound' }));
});

test('given a resource, when If-Match names another revision, then PreconditionFailed before any state conflict', (t) => {
  const gone = [created, deleted];
  t.deepEqual(scenario([created], update([created], { op: 'labels', labels: {} }, { revision: 2 })), left({ _tag: 'PreconditionFailed' }));
  t.deepEqual(scenario(gone, update(gone, { op: 'delete' }, { revision: 1 })), left({ _tag: 'PreconditionFailed' }));
});

test('given a schema, when published (its data change), then SchemaPublished; given it published, then every change is Conflict frozen', (t) => {
  const url = 'https://pub.example/published-schemas/x';
  t.deepEqual(scenario([created], update([created], { op: 'data', data: { url } })), right([published]));
  const frozen = [created, published];
  t.like(schemaResource.envelopeOf(stateOf(frozen)), { revision: 2, data: { published_at: LATER, url } });
  for (const change of [{ op: 'labels', labels: {} }, { op: 'delete' }, { op: 'data', data: { url } }] as const) {
    t.deepEqual(scenario(frozen, update(frozen, change)), left({ _tag: 'Conflict', reason: 'frozen' }));
  }
});

test('given a resource at the last revision, when changed, then Conflict revision_limit; one before it, the change is made', (t) => {
  const labelled = (n: number): SchemaEvent => ({ type: 'SchemaLabelsUpdated', data: { schemaId: ID, labels: { n: String(n) }, updatedAt: AT } });
  let state = stateOf([created]);
  for (let n = 1; n < MAX_REVISION - 1; n++) state = evolve(state, labelled(n));
  const at = (revision: number): ResourceCommand<SchemaEvent> => ({
    type: 'UpdateResource',
    data: { tenantId: TENANT, id: ID, ifMatch: (tag) => tag === etagOf(ID, revision), update: { op: 'labels', labels: {} }, at: LATER },
  });
  t.is(schemaResource.envelopeOf(state)?.revision, MAX_REVISION - 1);
  t.is(decide(at(MAX_REVISION - 1), state)._tag, 'Right');
  state = evolve(state, labelled(MAX_REVISION));
  t.deepEqual(decide(at(MAX_REVISION), state), left({ _tag: 'Conflict', reason: 'revision_limit' }));
});

test('given a draft, when its data changes to data that breaks the draft contract, then it is refused as a broken call', (t) => {
  const draftCreated: DraftEvent = {
    type: 'DraftCreated',
    data: {
      draftId: ID, tenantId: TENANT, annotations: {}, labels: {}, createdAt: AT,
      data: { type: [], linked_credential_refs: [], linked_draft_refs: [], meta_schema: null, json_ld_vocabs: [], vcdm_json_schemas: [], schema: null, sealed: { alg: 'A256GCM', iv: 'iv', ciphertext: 'ct', tag: 'tag' } },
    },
  };
  const state = draftResource.evolve(draftResource.initialState, draftCreated);
  const change = (data: Update & { op: 'data' }): ResourceCommand<DraftEvent> => ({
    type: 'UpdateResource',
    data: { tenantId: TENANT, id: ID, ifMatch: (tag) => tag === etagOf(ID, 1), update: data, at: LATER },
  });
  t.throws(() => draftResource.decide(change({ op: 'data', data: { type: 'not a list' } }), state), { message: /draft data contract/ });
  const whole = { ...draftCreated.data.data, json_ld_vocabs: ['https://vocab.example'] };
  t.deepEqual(draftResource.decide(change({ op: 'data', data: whole }), state), right([{ type: 'DraftUpdated', data: { draftId: ID, data: whole, updatedAt: LATER } }]));
});
