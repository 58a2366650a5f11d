// Filing a support request (the use case, no HTTP): the request's wire schema, and the request
// recorded on its own stream, its message sealed with a data key issued for it. Nothing refuses a
// well-formed request, so the answer is what was recorded.
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { MESSAGE, supportRequest, supportRequestKeyOwner, supportRequestStream, SupportRequestType, type Command } from '../../streams/supportRequest.js';
import { sealFor, type DataKeys } from '../crypto/dataKeys.js';
import { handleCommand, type EventMetadata } from '../eventstore/handle.js';
import type { EventStore, Position } from '../eventstore/port.js';
import { NonEmptyString } from '../http/codecs.js';

/** `POST /support-requests`: the request's body. */
export const SupportRequestBody = t.type({ message: t.refinement(NonEmptyString, (s) => s.trim() !== '', 'a non-empty message'), type: SupportRequestType });
export type SupportRequestBody = t.TypeOf<typeof SupportRequestBody>;

export interface FileSupportRequestDeps {
  readonly store: EventStore;
  readonly dataKeys: Pick<DataKeys, 'issue'>;
  readonly now: () => Date;
}

export interface FiledSupportRequest {
  readonly requestId: string;
  readonly type: SupportRequestType;
  readonly createdAt: string;
  readonly position: Position;
}

/** Records the tenant's new support request, its message sealed. */
export const fileSupportRequest = async (deps: FileSupportRequestDeps, tenantId: string, body: SupportRequestBody, metadata: EventMetadata): Promise<FiledSupportRequest> => {
  const requestId = randomUUID();
  const key = await deps.dataKeys.issue(supportRequestKeyOwner(requestId));
  if (isLeft(key)) throw new Error(`support request data key: ${key.left._tag}`);
  const createdAt = deps.now().toISOString();
  const command: Command = {
    type: 'CreateSupportRequest',
    data: { requestId, tenantId, type: body.type, message: sealFor(key.right, MESSAGE, body.message), at: createdAt },
  };
  // A new id's stream: nothing to read, and its fresh id leaves the store nothing to refuse.
  const handled = await handleCommand(deps.store, supportRequest, supportRequestStream(requestId), command, {
    commandId: requestId,
    metadata,
    loaded: { state: supportRequest.initialState, expectedRevision: 'no_stream' },
  });
  if (isLeft(handled)) throw new Error(`support request not recorded: ${handled.left.error._tag}`);
  if (!handled.right.position) throw new Error('a support request recorded without a position');
  return { requestId, type: body.type, createdAt, position: handled.right.position };
};
