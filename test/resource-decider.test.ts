// The schema kind's decider in given / when / then form (the kind with every shared rule, its own
// operation and a frozen state), and the shared revision limit, on streams/resource.ts's rules.
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { etagOf, MAX_REVISION } from '../streams/resource.js';
import { schema, type SchemaEvent } from '../streams/schema.js';
import { givenWhen, stateAfter } from './support/decider.js';
import { AT, LATER, RESOURCE_ID as schemaId, sharedOperationTests, targetOn, TENANT } from './support/resourceKind.js';

const facts = { schemaId, tenantId: TENANT, slug: 'pid', version: '1', schema: { type: 'object' }, annotations: {}, labels: {} };
const created: SchemaEvent = { type: 'SchemaCreated', data: { ...facts, createdAt: AT } };
const url = 'https://pub.example/published-schemas/x';
const published: SchemaEvent = { type: 'SchemaPublished', data: { schemaId, url, publishedAt: LATER } };

sharedOperationTests({
  decider: schema,
  create: { type: 'CreateSchema', data: { ...facts, at: AT } },
  created,
  annotated: (annotations) => ({ type: 'SchemaAnnotationsUpdated' as const, data: { schemaId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'SchemaLabelsUpdated' as const, data: { schemaId, labels, updatedAt: LATER } }),
  deleted: { type: 'SchemaDeleted', data: { schemaId, deletedAt: LATER } },
  restored: { type: 'SchemaRestored', data: { schemaId, restoredAt: LATER } },
});

const scenario = givenWhen(schema);
const stateOf = stateAfter(schema);

test('given a schema, when published, then SchemaPublished at its URL; given it published, then every change is Conflict frozen', (t) => {
  t.deepEqual(scenario([created], { type: 'PublishSchema', data: { ...targetOn([created]), url } }), right([published]));
  const frozen = [created, published];
  t.like(schema.envelopeOf(stateOf(frozen)), { revision: 2, data: { published_at: LATER, url } });
  for (const change of [
    { type: 'UpdateLabels', data: { ...targetOn(frozen), labels: {} } },
    { type: 'Delete', data: targetOn(frozen) },
    { type: 'PublishSchema', data: { ...targetOn(frozen), url } },
  ] as const) {
    t.deepEqual(scenario(frozen, change), left({ _tag: 'Conflict', reason: 'frozen' }));
  }
});

test('given a resource at the last revision, when changed, then Conflict revision_limit; one before it, the change is made', (t) => {
  const labelled = (n: number): SchemaEvent => ({ type: 'SchemaLabelsUpdated', data: { schemaId, labels: { n: String(n) }, updatedAt: AT } });
  let state = stateOf([created]);
  for (let n = 1; n < MAX_REVISION - 1; n++) state = schema.evolve(state, labelled(n));
  const at = (revision: number) => ({ type: 'UpdateLabels' as const, data: { tenantId: TENANT, id: schemaId, ifMatch: (tag: string) => tag === etagOf(schemaId, revision), labels: {}, at: LATER } });
  t.is(schema.envelopeOf(state)?.revision, MAX_REVISION - 1);
  t.is(schema.decide(at(MAX_REVISION - 1), state)._tag, 'Right');
  state = schema.evolve(state, labelled(MAX_REVISION));
  t.deepEqual(schema.decide(at(MAX_REVISION), state), left({ _tag: 'Conflict', reason: 'revision_limit' }));
});
