// The draft kind's decider in given / when / then form: created once, updated (PATCH /drafts/{id})
// under the shared rules, and the resource API's shared operations.
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import { draft, type DraftData, type DraftEvent } from '../streams/draft.js';
import { givenWhen } from './support/decider.js';
import { AT, LATER, RESOURCE_ID as draftId, sharedOperationTests, targetOn, TENANT } from './support/resourceKind.js';

const data: DraftData = {
  type: [], linked_credential_refs: [], linked_draft_refs: [], meta_schema: null, json_ld_vocabs: [], vcdm_json_schemas: [], schema: null,
  sealed: { alg: 'A256GCM', iv: 'iv', ciphertext: 'ct', tag: 'tag' },
};
const facts = { draftId, tenantId: TENANT, data, annotations: {}, labels: {} };
const created: DraftEvent = { type: 'DraftCreated', data: { ...facts, createdAt: AT } };
const deleted: DraftEvent = { type: 'DraftDeleted', data: { draftId, deletedAt: LATER } };

sharedOperationTests({
  decider: draft,
  create: { type: 'CreateDraft', data: { ...facts, at: AT } },
  created,
  annotated: (annotations) => ({ type: 'DraftAnnotationsUpdated' as const, data: { draftId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'DraftLabelsUpdated' as const, data: { draftId, labels, updatedAt: LATER } }),
  deleted,
  restored: { type: 'DraftRestored', data: { draftId, restoredAt: LATER } },
});

const scenario = givenWhen(draft);
const whole: DraftData = { ...data, json_ld_vocabs: ['https://vocab.example'] };

test('given a draft, when it is updated, then DraftUpdated with the whole data; deleted, or under a stale If-Match, it is refused', (t) => {
  t.deepEqual(scenario([created], { type: 'UpdateDraft', data: { ...targetOn([created]), draft: whole } }), right([{ type: 'DraftUpdated', data: { draftId, data: whole, updatedAt: LATER } }]));
  t.deepEqual(scenario([created, deleted], { type: 'UpdateDraft', data: { ...targetOn([created, deleted]), draft: whole } }), left({ _tag: 'Conflict', reason: 'deleted' }));
  t.deepEqual(scenario([created], { type: 'UpdateDraft', data: { ...targetOn([created], { revision: 2 }), draft: whole } }), left({ _tag: 'PreconditionFailed' }));
});
