// Ops commands for the read models: where they stand against the store, a rebuild that always
// ends (caught up, or stopped by a failure that is not an event's), and the events a projection
// set aside (src/quarantine.ts) with their acknowledgment.
import { existsSync } from 'node:fs';
import { isLeft } from 'fp-ts/lib/Either.js';
import { allProjections } from '../projections/index.js';
import type { Config } from '../src/config.js';
import { readModelsFile } from '../src/eventstore/open.js';
import { formatPosition, parsePosition, type EventStore } from '../src/eventstore/port.js';
import { createLogger } from '../src/log.js';
import { ProjectionRunner } from '../src/projection-runner.js';
import { acknowledgeQuarantine, countQuarantine, listQuarantine } from '../src/quarantine.js';
import { Sqlite } from '../src/sqlite.js';

export const projectionsUsage = `  projections [status]
      this instance's read models against the store: checkpoint, head, quarantined events
  projections rebuild
      drops the read models and rebuilds them from the event store (stop the service first); progress on stderr
  projections quarantine list
      events a projection set aside, as JSON lines (stream included: operators only)
  projections quarantine ack COMMIT/PREPARE
      acknowledges the quarantined event at that position: it no longer holds readiness back
`;

const metadata = { actor: 'ops' };

/** The newest event's position, `0/0` for an empty store. */
const headOf = async (store: EventStore): Promise<string> => {
  const [newest] = await store.readAll({ direction: 'backwards', maxCount: 1 });
  return newest ? formatPosition(newest.position) : '0/0';
};

/**
 * Reads this instance's read-model file beside a running service, without writing to it;
 * undefined, with a message, when there is none yet.
 */
const withReadModels = <T>(config: Config, query: (db: Sqlite) => T): T | undefined => {
  const file = readModelsFile(config);
  if (!existsSync(file)) {
    process.stderr.write(`no read models at ${file}: start the service, or run projections rebuild\n`);
    return undefined;
  }
  const db = Sqlite.open(file, { synchronous: 'NORMAL', readOnly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
};

const rebuild = async (config: Config, store: EventStore, out: (line: string) => void): Promise<number> => {
  const log = createLogger({ level: 'warn', write: (line) => process.stderr.write(`${line}\n`) });
  const runner = await ProjectionRunner.open({ store, file: readModelsFile(config), projections: allProjections, log });
  const started = Date.now();
  const head = await headOf(store);
  try {
    await runner.rebuild((s) =>
      process.stderr.write(`\rrebuilding: ${s.applied} events applied, checkpoint ${s.checkpoint} of head ${head}, ${s.quarantine.total} quarantined   `),
    );
    const { applied, checkpoint, quarantine } = runner.status();
    process.stderr.write('\n');
    out(JSON.stringify({ rebuilt: allProjections.map((p) => p.name), events: applied, checkpoint, head, quarantined: quarantine.total, ms: Date.now() - started }));
    return 0;
  } catch (err) {
    process.stderr.write(`\nrebuild stopped at checkpoint ${runner.status().checkpoint}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await runner.close();
  }
};

/** Runs a `projections` command (`args` after the word); undefined when it is not one. */
export const runProjectionsCommand = async (
  args: readonly string[],
  config: Config,
  store: EventStore,
  out: (line: string) => void,
  usage: (message: string) => Error,
): Promise<number | undefined> => {
  const [sub, action, position] = args;
  switch (`${sub ?? 'status'} ${action ?? ''}`.trim()) {
    case 'status': {
      const head = await headOf(store);
      const read = withReadModels(config, (db) => ({
        checkpoint: db.get<{ position: string }>('SELECT position FROM projection_checkpoint WHERE id = 1')?.position ?? '0/0',
        quarantine: countQuarantine(db),
      }));
      if (!read) return 1;
      out(JSON.stringify({ checkpoint: read.checkpoint, head, quarantine: read.quarantine }));
      return 0;
    }
    case 'rebuild':
      return rebuild(config, store, out);
    case 'quarantine list': {
      const entries = withReadModels(config, listQuarantine);
      for (const entry of entries ?? []) out(JSON.stringify(entry));
      return entries ? 0 : 1;
    }
    case 'quarantine ack': {
      const at = parsePosition(position ?? '');
      if (!at) throw usage('projections quarantine ack: expected the position COMMIT/PREPARE, e.g. 42/42');
      const acknowledged = await acknowledgeQuarantine(store, at, metadata);
      if (isLeft(acknowledged)) {
        process.stderr.write(`the store has no event at ${formatPosition(at)}\n`);
        return 2;
      }
      out(JSON.stringify({ position: formatPosition(at), acknowledged: true }));
      return 0;
    }
  }
  return undefined;
};
