// The DIDComm message kind's decider in given / when / then form: sent once, its recipient
// sealed, then the resource API's shared operations.
import { didcommMessage } from '../streams/didcommMessage.js';
import { AT, LATER, RESOURCE_ID as messageId, sharedOperationTests, TENANT } from './support/resourceKind.js';

const facts = {
  messageId,
  tenantId: TENANT,
  from: 'did:web:connector.example:tenants:tenant-1',
  to: { alg: 'A256GCM' as const, iv: 'iv', ciphertext: 'ct', tag: 'tag' },
  keyId: '#key-1',
  credentials: { items: [] },
  files: { items: [] },
  presentations: { items: [] },
  transport: 'didcomm/v2' as const,
  annotations: {},
  labels: {},
};

sharedOperationTests({
  decider: didcommMessage,
  create: { type: 'SendDidcommMessage', data: { ...facts, at: AT } },
  created: { type: 'DidcommMessageSent', data: { ...facts, sentAt: AT } },
  annotated: (annotations) => ({ type: 'DidcommMessageAnnotationsUpdated' as const, data: { messageId, annotations, updatedAt: LATER } }),
  labelled: (labels) => ({ type: 'DidcommMessageLabelsUpdated' as const, data: { messageId, labels, updatedAt: LATER } }),
  deleted: { type: 'DidcommMessageDeleted', data: { messageId, deletedAt: LATER } },
  restored: { type: 'DidcommMessageRestored', data: { messageId, restoredAt: LATER } },
});
