// Streams.Tombstone: a hard delete, after which the stream can never be written, read or
// tombstoned again.
import { status, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { streamDeletedError, wireError, wrongExpectedVersionError } from './errors.js';
import { expectedOf } from './expectedRevision.js';
import type { Log } from './log.js';
import { streamsPb, type TombstoneReq, type TombstoneResp } from './protos.js';
import { streamNameOf, withPosition } from './wire.js';

export const handleTombstone =
  (log: Log) =>
  (call: ServerUnaryCall<TombstoneReq, TombstoneResp>, callback: sendUnaryData<TombstoneResp>): void => {
    const options = call.request.getOptions();
    if (!options) return callback(wireError(status.INVALID_ARGUMENT, 'Tombstone options are required'));
    const streamId = streamNameOf(options.getStreamIdentifier());
    const expected = expectedOf(options, () => options.getRevision());
    const outcome = log.tombstone(streamId, expected);
    if (outcome.kind === 'deleted') return callback(streamDeletedError(streamId));
    if (outcome.kind === 'wrongExpectedVersion') {
      return callback(wrongExpectedVersionError('Delete', streamId, expected, outcome.current));
    }
    const position = withPosition(new streamsPb.TombstoneResp.Position(), outcome.position!);
    callback(null, new streamsPb.TombstoneResp().setPosition(position));
  };
