// The presentation kind's decider in given / when / then form: made once from the tenant's
// credentials, then the resource API's shared operations.
import { verifiablePresentation } from '../streams/verifiablePresentation.js';
import { AT, LATER, RESOURCE_ID as presentationId, sharedOperationTests, TENANT } from './support/resourceKind.js';

const data = {
  digest_multibase: 'zQmPresentation',
  linked_credential_refs: [{ digest_multibase: 'zQmCredential', resource_id: 'credential-1' }],
  type: ['VerifiablePresentation'],
};
const facts = { presentationId, tenantId: TENANT, blobId: 'blob-1', data, annotations: {}, labels: {} };

sharedOperationTests({
  decider: verifiablePresentation,
  create: { type: 'CreatePresentation', data: { ...facts, at: AT } },
  created: { type: 'PresentationCreated', data: { ...facts, createdAt: AT } },
  annotated: (annotations) => ({ type: 'PresentationAnnotationsUpdated' as const, data: { presentationId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'PresentationLabelsUpdated' as const, data: { presentationId, labels, updatedAt: LATER } }),
  deleted: { type: 'PresentationDeleted', data: { presentationId, deletedAt: LATER } },
  restored: { type: 'PresentationRestored', data: { presentationId, restoredAt: LATER } },
});
