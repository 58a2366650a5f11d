// Streams.Append and Streams.BatchAppend.
import { status, type ServerDuplexStream, type ServerReadableStream, type sendUnaryData } from '@grpc/grpc-js';
import {
  appendWrongExpectedVersion,
  batchBadRequest,
  batchStreamDeleted,
  batchWrongExpectedVersion,
  missingMetadataError,
  streamDeletedError,
  wireError,
  type WireError,
} from './errors.js';
import type { ProposedEvent } from './events.js';
import { expectedOf } from './expectedRevision.js';
import type { Log } from './log.js';
import {
  emptyPb,
  sharedPb,
  streamsPb,
  type AppendReq,
  type AppendResp,
  type BatchAppendReq,
  type BatchAppendResp,
  type SharedPbModule,
  type StreamsPbModule,
} from './protos.js';
import { parseUuid, streamIdentifier, streamNameOf, withPosition } from './wire.js';

interface ProposedMessage {
  getId(): SharedPbModule.UUID | undefined;
  getMetadataMap(): { get(key: string): string | undefined };
  getData_asU8(): Uint8Array;
  getCustomMetadata_asU8(): Uint8Array;
}

const proposedEvent = (message: ProposedMessage): ProposedEvent | WireError => {
  const type = message.getMetadataMap().get('type');
  if (type === undefined) return missingMetadataError('type');
  const contentType = message.getMetadataMap().get('content-type');
  if (contentType === undefined) return missingMetadataError('content-type');
  return {
    id: parseUuid(message.getId()),
    type,
    contentType,
    data: message.getData_asU8(),
    metadata: message.getCustomMetadata_asU8(),
  };
};

const isWireError = (value: ProposedEvent | WireError): value is WireError => 'code' in value;

export const handleAppend =
  (log: Log) =>
  (call: ServerReadableStream<AppendReq, AppendResp>, callback: sendUnaryData<AppendResp>): void => {
    let header: { streamId: string; expected: bigint; options: StreamsPbModule.AppendReq.Options } | undefined;
    const events: ProposedEvent[] = [];
    let failure: WireError | undefined;
    call.on('data', (request: AppendReq) => {
      if (failure) return;
      const options = request.getOptions();
      if (!header) {
        if (!options) failure = wireError(status.INVALID_ARGUMENT, 'The first message of an append must carry its options');
        else {
          const streamId = streamNameOf(options.getStreamIdentifier());
          header = { streamId, expected: expectedOf(options, () => options.getRevision()), options };
        }
        return;
      }
      const proposed = request.getProposedMessage();
      if (!proposed) return;
      const event = proposedEvent(proposed);
      if (isWireError(event)) failure = event;
      else events.push(event);
    });
    call.on('end', () => {
      if (failure || !header) return callback(failure ?? wireError(status.INVALID_ARGUMENT, 'Empty append'));
      const { streamId, expected, options } = header;
      const outcome = log.append(streamId, expected, events);
      if (outcome.kind === 'deleted') return callback(streamDeletedError(streamId));
      if (outcome.kind === 'wrongExpectedVersion') {
        return callback(null, appendWrongExpectedVersion(options, outcome.current));
      }
      const success = new streamsPb.AppendResp.Success();
      if (outcome.current < 0n) success.setNoStream(new sharedPb.Empty());
      else success.setCurrentRevision(outcome.current.toString());
      if (outcome.position === undefined) success.setNoPosition(new sharedPb.Empty());
      else success.setPosition(withPosition(new streamsPb.AppendResp.Position(), outcome.position));
      callback(null, new streamsPb.AppendResp().setSuccess(success));
    });
  };

const batchSuccess = (current: bigint, position: bigint | undefined): StreamsPbModule.BatchAppendResp.Success => {
  const success = new streamsPb.BatchAppendResp.Success();
  if (current < 0n) success.setNoStream(new emptyPb.Empty());
  else success.setCurrentRevision(current.toString());
  if (position === undefined) success.setNoPosition(new emptyPb.Empty());
  else success.setPosition(withPosition(new sharedPb.AllStreamPosition(), position));
  return success;
};

interface PendingBatch {
  readonly streamId: string;
  readonly expected: bigint;
  readonly events: ProposedEvent[];
}

export const handleBatchAppend =
  (log: Log) =>
  (call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void => {
    // A batch of one correlation id may span several requests; only its final one writes.
    const pending = new Map<string, PendingBatch>();
    let ended = false;
    call.on('cancelled', () => (ended = true));
    call.on('data', (request: BatchAppendReq) => {
      const correlationId = parseUuid(request.getCorrelationId());
      const options = request.getOptions();
      const respond = (streamId: string, fill: (resp: BatchAppendResp) => void): void => {
        const resp = new streamsPb.BatchAppendResp()
          .setCorrelationId(request.getCorrelationId())
          .setStreamIdentifier(streamIdentifier(streamId));
        fill(resp);
        if (!ended) call.write(resp);
      };
      if (options && !pending.has(correlationId)) {
        const streamId = streamNameOf(options.getStreamIdentifier());
        const expected = expectedOf(options, () => options.getStreamPosition());
        pending.set(correlationId, { streamId, expected, events: [] });
      }
      const batch = pending.get(correlationId);
      if (!batch) return;
      for (const message of request.getProposedMessagesList()) {
        const event = proposedEvent(message);
        if (isWireError(event)) {
          pending.delete(correlationId);
          return respond(batch.streamId, (r) => r.setError(batchBadRequest(event.details)));
        }
        batch.events.push(event);
      }
      if (!request.getIsFinal()) return;
      pending.delete(correlationId);
      const outcome = log.append(batch.streamId, batch.expected, batch.events);
      respond(batch.streamId, (resp) => {
        if (outcome.kind === 'deleted') resp.setError(batchStreamDeleted(batch.streamId));
        else if (outcome.kind === 'wrongExpectedVersion') {
          resp.setError(batchWrongExpectedVersion(batch.expected, outcome.current));
        }
        else resp.setSuccess(batchSuccess(outcome.current, outcome.position));
      });
    });
    call.on('end', () => {
      ended = true;
      call.end();
    });
  };
