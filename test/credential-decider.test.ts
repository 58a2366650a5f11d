// The credential kind's decider in given / when / then form: imported once from an upload, then
// the resource API's shared operations.
import { credential } from '../streams/credential.js';
import { AT, LATER, RESOURCE_ID as credentialId, sharedOperationTests, TENANT } from './support/resourceKind.js';

const data = {
  data_model: { flavor_name: 'VCDM', issuanceDate: AT, expirationDate: null, proof: null, type: ['VerifiableCredential'] },
  digest_multibase: 'uEiD',
  linked_credential_refs: [],
  linked_file_refs: [],
  type: ['VerifiableCredential'],
  valid_from: AT,
  valid_until: null,
};
const facts = { credentialId, tenantId: TENANT, blobId: 'blob-1', draftId: null, data, annotations: {}, labels: {} };

sharedOperationTests({
  decider: credential,
  create: { type: 'ImportCredential', data: { ...facts, at: AT } },
  created: { type: 'CredentialImported', data: { ...facts, importedAt: AT } },
  annotated: (annotations) => ({ type: 'CredentialAnnotationsUpdated' as const, data: { credentialId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'CredentialLabelsUpdated' as const, data: { credentialId, labels, updatedAt: LATER } }),
  deleted: { type: 'CredentialDeleted', data: { credentialId, deletedAt: LATER } },
  restored: { type: 'CredentialRestored', data: { credentialId, restoredAt: LATER } },
});
