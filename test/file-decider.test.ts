// The file kind's decider in given / when / then form: created once from an upload, then the
// resource API's shared operations.
import { file, type FileEvent } from '../streams/file.js';
import { AT, LATER, RESOURCE_ID as fileId, sharedOperationTests, TENANT } from './support/resourceKind.js';

const facts = { fileId, tenantId: TENANT, blobId: 'blob-1', contentType: 'image/png', digestMultibase: 'uEiD', filename: 'a.png', filesize: 3, annotations: {}, labels: { team: 'a' } };

sharedOperationTests({
  decider: file,
  create: { type: 'CreateFile', data: { ...facts, at: AT } },
  created: { type: 'FileCreated', data: { ...facts, createdAt: AT } } satisfies FileEvent,
  annotated: (annotations) => ({ type: 'FileAnnotationsUpdated' as const, data: { fileId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'FileLabelsUpdated' as const, data: { fileId, labels, updatedAt: LATER } }),
  deleted: { type: 'FileDeleted', data: { fileId, deletedAt: LATER } },
  restored: { type: 'FileRestored', data: { fileId, restoredAt: LATER } },
});
