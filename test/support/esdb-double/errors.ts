// Errors in the shape each call raises them: an RpcException (status code plus metadata), Append's
// wrong-expected-version response, and BatchAppend's google.rpc.Status.
import { Metadata, status } from '@grpc/grpc-js';
import { EXPECTED_ANY, EXPECTED_NO_STREAM, EXPECTED_STREAM_EXISTS } from './expectedRevision.js';
import {
  anyPb,
  Code,
  emptyPb,
  sharedPb,
  statusPb,
  streamsPb,
  type AppendResp,
  type CodePbModule,
  type SharedPbModule,
  type StatusPbModule,
  type StreamsPbModule,
} from './protos.js';
import { streamIdentifier } from './wire.js';

/** A gRPC error as the server raises it (RpcExceptions.cs): status code plus `exception` metadata. */
export interface WireError {
  readonly code: status;
  readonly details: string;
  readonly metadata: Metadata;
}

export const wireError = (code: status, details: string, entries: Record<string, string> = {}): WireError => {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return { code, details, metadata };
};

export const streamDeletedError = (streamId: string): WireError =>
  wireError(status.FAILED_PRECONDITION, `Event stream '${streamId}' is deleted.`, {
    exception: 'stream-deleted',
    'stream-name': streamId,
  });

export const wrongExpectedVersionError = (operation: string, streamId: string, expected: bigint, current: bigint): WireError =>
  wireError(
    status.FAILED_PRECONDITION,
    `${operation} failed due to WrongExpectedVersion. ` +
      `Stream: ${streamId}, Expected version: ${expected}, Actual version: ${current}`,
    {
      exception: 'wrong-expected-version',
      'stream-name': streamId,
      'expected-version': expected.toString(),
      'actual-version': current.toString(),
    },
  );

export const missingMetadataError = (property: string): WireError =>
  wireError(status.INVALID_ARGUMENT, `Required Metadata Property '${property}' is missing`, {
    exception: 'missing-required-metadata-property',
    'required-metadata-properties': 'type,content-type',
  });

/** Append's own wrong-expected-version answer (a response, not an error), old and new fields. */
export const appendWrongExpectedVersion = (options: StreamsPbModule.AppendReq.Options, current: bigint): AppendResp => {
  const empty = (): SharedPbModule.Empty => new sharedPb.Empty();
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (current < 0n) wrong.setCurrentNoStream(empty()).setNoStream2060(empty());
  else wrong.setCurrentRevision(current.toString()).setCurrentRevision2060(Number(current));
  if (options.hasAny()) wrong.setExpectedAny(empty()).setAny2060(empty());
  else if (options.hasStreamExists()) wrong.setExpectedStreamExists(empty()).setStreamExists2060(empty());
  else if (options.hasNoStream()) wrong.setExpectedNoStream(empty());
  else wrong.setExpectedRevision(options.getRevision()).setExpectedRevision2060(Number(options.getRevision()));
  return new streamsPb.AppendResp().setWrongExpectedVersion(wrong);
};

interface PackableDetail {
  serializeBinary(): Uint8Array;
}

/** google.rpc.Status with a packed detail, as Status.cs builds BatchAppend errors. */
const rpcStatus = (
  code: CodePbModule.Code,
  message: string,
  detail: PackableDetail,
  typeName: string,
): StatusPbModule.Status => {
  const details = new anyPb.Any();
  details.pack(detail.serializeBinary(), typeName);
  return new statusPb.Status().setCode(code).setMessage(message).setDetails(details);
};

export const batchWrongExpectedVersion = (expected: bigint, current: bigint): StatusPbModule.Status => {
  const detail = new sharedPb.WrongExpectedVersion();
  if (current < 0n) detail.setCurrentNoStream(new emptyPb.Empty());
  else detail.setCurrentStreamRevision(current.toString());
  if (expected === EXPECTED_ANY) detail.setExpectedAny(new emptyPb.Empty());
  else if (expected === EXPECTED_NO_STREAM) detail.setExpectedNoStream(new emptyPb.Empty());
  else if (expected === EXPECTED_STREAM_EXISTS) detail.setExpectedStreamExists(new emptyPb.Empty());
  else detail.setExpectedStreamPosition(expected.toString());
  return rpcStatus(Code.ALREADY_EXISTS, 'WrongExpectedVersion', detail, 'event_store.client.WrongExpectedVersion');
};

export const batchStreamDeleted = (streamId: string): StatusPbModule.Status => {
  const detail = new sharedPb.StreamDeleted().setStreamIdentifier(streamIdentifier(streamId));
  return rpcStatus(Code.NOT_FOUND, 'StreamDeleted', detail, 'event_store.client.StreamDeleted');
};

export const batchBadRequest = (message: string): StatusPbModule.Status => {
  const detail = new sharedPb.BadRequest().setMessage(message);
  return rpcStatus(Code.INVALID_ARGUMENT, 'BadRequest', detail, 'event_store.client.BadRequest');
};
