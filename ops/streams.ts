// `streams read|all`, for auditors: what the store holds, event by event. Read-only, and nothing
// is decrypted (ops/replay.ts).
import type { Command } from 'commander';
import type { Position, RecordedEvent } from '../src/eventstore/port.js';
import { action, DONE, refuse, withStore } from './action.js';
import { positionArgument } from './options.js';
import { JSON_OPTION, type JsonOption } from './output.js';
import { recordedJson, replayAll, replayStream } from './replay.js';

/**
 * Events are written as they are read, never gathered first: a stream or `$all` can be larger
 * than memory. A person's line leaves out the event id and metadata; `--json` has everything.
 */
const printer = (options: JsonOption) => (event: RecordedEvent): void => {
  const json = recordedJson(event);
  process.stdout.write(
    options.json ? `${JSON.stringify(json)}\n` : `${json.position}  ${json.stream}@${json.revision}  ${json.created}  ${json.type}  ${JSON.stringify(json.data)}\n`,
  );
};

export const registerStreams = (program: Command): void => {
  // `stream <stream>`, the command's earlier name, still reads one: `read` is the default.
  const streams = program.command('streams').alias('stream').description('the event store as recorded, for auditors (read-only; decrypts nothing)');

  streams
    .command('read', { isDefault: true })
    .description('one stream, every event in order (the default); exit 2 if it does not exist or was deleted')
    .argument('<stream>', 'the stream id, e.g. tenant-<tenant id>')
    .option(...JSON_OPTION)
    .action(
      action((streamId: string, options: JsonOption) =>
        withStore(async (store) => ((await replayStream(store, streamId, printer(options))) ? DONE : refuse(`stream ${streamId} does not exist or was deleted`))),
      ),
    );

  streams
    .command('all')
    .description('$all between two positions, both inclusive, in commit order')
    .option('--from <commit/prepare>', 'the first position (default: the start)', positionArgument)
    .option('--to <commit/prepare>', 'the last position (default: the end)', positionArgument)
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption & { from?: Position; to?: Position }) =>
        withStore(async (store) => {
          await replayAll(store, { from: options.from, to: options.to }, printer(options));
          return DONE;
        }),
      ),
    );
};
