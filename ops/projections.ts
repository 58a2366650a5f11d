// `projections status|rebuild|quarantine`: where this instance's read models stand against the
// store, a rebuild that always ends (caught up, or stopped by a failure that is not an event's),
// and the events a projection set aside (src/readside/quarantine.ts) with their acknowledgment.
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { isLeft } from 'fp-ts/lib/Either.js';
import { allProjections } from '../projections/index.js';
import type { Config } from '../src/config/config.js';
import { readModelsFile } from '../src/eventstore/open.js';
import { formatPosition, START, type EventStore, type Position } from '../src/eventstore/port.js';
import { ProjectionRunner } from '../src/readside/projectionRunner.js';
import { readCheckpoint } from '../src/readside/readModelTables.js';
import { acknowledgeQuarantine, countQuarantine, listQuarantine, type QuarantineEntry } from '../src/readside/quarantine.js';
import { Sqlite } from '../src/sqlite/connection.js';
import { action, DONE, FAILED, log, metadata, refuse, withConfig, withStore, type ExitCode } from './action.js';
import { positionArgument } from './options.js';
import { JSON_OPTION, printListing, printRecord, type JsonOption } from './output.js';
import { rebuildProgress } from './progress.js';

/** The newest event's position, START for an empty store. */
const headOf = async (store: EventStore): Promise<Position> => {
  const [newest] = await store.readAll({ direction: 'backwards', maxCount: 1 });
  return newest?.position ?? START;
};

/**
 * Reads this instance's read-model file beside a running service, without writing to it; FAILED,
 * with a message, when there is none yet.
 */
const withReadModels = (config: Config, query: (db: Sqlite) => ExitCode): ExitCode => {
  const file = readModelsFile(config);
  if (!existsSync(file)) {
    process.stderr.write(`no read models at ${file}: start the service, or run projections rebuild\n`);
    return FAILED;
  }
  const db = Sqlite.open(file, { synchronous: 'NORMAL', readOnly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
};

const rebuild = async (options: JsonOption, config: Config, store: EventStore): Promise<ExitCode> => {
  const runner = ProjectionRunner.open({ store, file: readModelsFile(config), projections: allProjections, log });
  const started = Date.now();
  const head = await headOf(store);
  const progress = rebuildProgress(process.stderr, head);
  try {
    await runner.rebuild((s) => progress.update(s));
    const status = runner.status();
    progress.end(status);
    const summary = {
      rebuilt: allProjections.map((p) => p.name),
      events: status.applied,
      checkpoint: status.checkpoint,
      head: formatPosition(head),
      quarantined: status.quarantine.total,
      ms: Date.now() - started,
    };
    printRecord(options, summary, [
      ['rebuilt', summary.rebuilt.join(', ')],
      ['events', String(summary.events)],
      ['checkpoint', summary.checkpoint],
      ['head', summary.head],
      ['quarantined', String(summary.quarantined)],
      ['ms', String(summary.ms)],
    ]);
    return DONE;
  } catch (err) {
    process.stderr.write(`\nrebuild stopped at checkpoint ${runner.status().checkpoint}: ${err instanceof Error ? err.message : String(err)}\n`);
    return FAILED;
  } finally {
    await runner.close();
  }
};

export const registerProjections = (program: Command): void => {
  const projections = program.command('projections').description("this instance's read models (READ_MODELS_FILE)");

  projections
    .command('status', { isDefault: true })
    .description('checkpoint against the head of the store, and quarantined events (the default); exit 1 without read models')
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption) =>
        withStore(async (store, config) => {
          const head = formatPosition(await headOf(store));
          return withReadModels(config, (db) => {
            const checkpoint = formatPosition(readCheckpoint(db));
            const quarantine = countQuarantine(db);
            printRecord(options, { checkpoint, head, quarantine }, [
              ['checkpoint', checkpoint],
              ['head', head],
              ['quarantined', `${quarantine.total} (${quarantine.unacknowledged} unacknowledged)`],
            ]);
            return DONE;
          });
        }),
      ),
    );

  projections
    .command('rebuild')
    .description('drops the read models and rebuilds them from the store (stop the service first); progress on stderr, exit 1 if it stops')
    .option(...JSON_OPTION)
    .action(action((options: JsonOption) => withStore((store, config) => rebuild(options, config, store))));

  const quarantine = projections.command('quarantine').description('events a projection set aside');

  quarantine
    .command('list')
    .description('quarantined events, stream included (operators only); exit 1 without read models')
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption) =>
        withConfig(async (config) =>
          withReadModels(config, (db) => {
            printListing<QuarantineEntry>(options, listQuarantine(db), [
              { header: 'POSITION', cell: (e) => e.position },
              { header: 'PROJECTION', cell: (e) => e.projection },
              { header: 'TYPE', cell: (e) => e.type },
              { header: 'STREAM', cell: (e) => e.stream },
              { header: 'ACKNOWLEDGED', cell: (e) => (e.acknowledged ? 'yes' : 'no') },
              { header: 'REASON', cell: (e) => e.reason },
            ]);
            return DONE;
          }),
        ),
      ),
    );

  quarantine
    .command('ack')
    .description('acknowledges the quarantined event at a position: it no longer holds readiness back; acknowledging again records nothing; exit 2 if the store has no event there')
    .argument('<commit/prepare>', "the event's position, e.g. 42/42", positionArgument)
    .option(...JSON_OPTION)
    .action(
      action((at: Position, options: JsonOption) =>
        withStore(async (store) => {
          const acknowledged = await acknowledgeQuarantine(store, at, metadata);
          if (isLeft(acknowledged)) return refuse(`the store has no event at ${formatPosition(at)}`);
          // Acknowledging again records nothing: the first acknowledgment stays on record.
          const changed = acknowledged.right.position !== undefined;
          printRecord(options, { position: formatPosition(at), acknowledged: true, changed }, [
            ['position', formatPosition(at)],
            ['acknowledged', changed ? 'yes' : `already, at ${acknowledged.right.acknowledgedAt}`],
          ]);
          return DONE;
        }),
      ),
    );
};
