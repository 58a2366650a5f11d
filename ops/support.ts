// `support list|show|start|export|erase|resolve|reject`: the tenants' support requests as a queue
// the operator works. Messages are opened with the KEK (the tool opens the service's key store).
// `export` (DATA_DUMP) builds the tenant's archive for it to download; `erase` (DELETION) erases
// the tenant's data; `resolve` (RECTIFICATION, OTHER) and `reject` record what was done in a note.
// Each is recorded on the request's stream (src/resources/supportWork.ts); a command the request's
// state or type does not take is refused (exit 2) and changes nothing.
import { isLeft, type Either } from 'fp-ts/lib/Either.js';
import type { Command } from 'commander';
import { allProjections } from '../projections/index.js';
import type { Projection } from '../projections/projection.js';
import { findSupportRequest, listSupportRequests, supportRequestsProjection, type SupportRequestRow } from '../projections/supportRequests.js';
import { openKeyStore } from '../src/app/keyStore.js';
import type { KeyStore } from '../src/crypto/keyStore.js';
import { blobDirectory, sealedBlobStore } from '../src/blobStore.js';
import type { Config } from '../src/config/config.js';
import { dataKeys, type DataKeys } from '../src/crypto/dataKeys.js';
import type { EventStore } from '../src/eventstore/port.js';
import { exportArchives, exportDirectory } from '../src/resources/exportArchives.js';
import { supportRequestView } from '../src/resources/supportRequestView.js';
import { eraseRequest, exportRequest, rejectRequest, resolveRequest, startRequest, type SupportWorkDeps, type WorkError } from '../src/resources/supportWork.js';
import { action, DONE, log, metadata, refuse, refusedBy, withStore, type ExitCode } from './action.js';
import { withFreshReadModels } from './freshReadModels.js';
import { JSON_OPTION, printListing, printRecord, type JsonOption } from './output.js';

const STATUSES = ['OPEN', 'IN_PROGRESS', 'DONE', 'REJECTED'] as const;

interface NoteOption extends JsonOption {
  readonly note?: string;
}

/** Runs `body` with the service's data keys (the KEK from its key store) and the key store. */
const withDataKeys = async <T>(store: EventStore, config: Config, body: (keys: DataKeys, keyStore: KeyStore) => Promise<T>): Promise<T> => {
  const keyStore = await openKeyStore(config, log);
  try {
    return await body(dataKeys(store, keyStore.kek), keyStore);
  } finally {
    keyStore.close();
  }
};

/** One request as the operator reads it: the tenant's view, with the tenant. */
const operatorView = async (keys: DataKeys, row: SupportRequestRow) => ({ tenant_id: row.tenantId, ...(await supportRequestView(keys, row)) });

const printRequest = (options: JsonOption, view: Awaited<ReturnType<typeof operatorView>>): void =>
  printRecord(options, view, [
    ['id', String(view.id)],
    ['tenant_id', view.tenant_id],
    ['type', String(view.type)],
    ['status', String(view.status)],
    ['created_at', String(view.created_at)],
    ['modified_at', String(view.modified_at)],
    ['message', view.message === null ? "(gone: its key was destroyed)" : String(view.message)],
    ['note', view.note === null ? '-' : String(view.note)],
    ...(view.export ? ([['export', JSON.stringify(view.export)]] as const) : []),
    ...(view.erasure ? ([['erasure', JSON.stringify(view.erasure)]] as const) : []),
    ['transitions', view.transitions.map((t) => `${t.status}@${t.at}`).join(' ')],
  ]);

/** Prints the request as it now is, or refuses an unknown id. */
const show = (store: EventStore, config: Config, options: JsonOption, requestId: string): Promise<ExitCode> =>
  withDataKeys(store, config, async (keys) => {
    const view = await withFreshReadModels(store, [supportRequestsProjection], async (db) => {
      const row = findSupportRequest(db, requestId);
      return row && operatorView(keys, row);
    });
    if (!view) return refuse(`no support request ${requestId}`);
    printRequest(options, view);
    return DONE;
  });

type Work = (deps: SupportWorkDeps, requestId: string, note: string | null) => Promise<Either<WorkError, void>>;

/** What export and erasure read: every read model. State changes alone need none. */
const EVERYTHING = allProjections;

/** A work command: `run` on read models (`projections`) caught up with the store, then the request as it now is. */
const work = (run: Work, noteRequired: boolean, projections: readonly Projection[] = []) =>
  action((requestId: string, options: NoteOption) => {
    if (noteRequired && (options.note === undefined || options.note.trim() === '')) return Promise.resolve(refuse('error: --note TEXT is required: say what was done, or why not'));
    return withStore((store, config) =>
      withDataKeys(store, config, async (keys, keyStore) => {
        const blobDir = blobDirectory(config);
        const done = await withFreshReadModels(store, projections, async (db) =>
          run(
            {
              store,
              dataKeys: keys,
              tenantKeys: keyStore.tenantKeys,
              db,
              blobs: await sealedBlobStore(blobDir),
              archives: exportArchives(exportDirectory(blobDir)),
              exportRetentionSeconds: config.supportExportRetentionSeconds,
              now: () => new Date(),
              metadata,
            },
            requestId,
            options.note ?? null,
          ),
        );
        if (isLeft(done)) return refusedBy(done.left);
        return show(store, config, options, requestId);
      }),
    );
  });

const noted = (command: Command, required: boolean): Command =>
  (required ? command.requiredOption('--note <text>', 'what was done, or why not (required)') : command.option('--note <text>', 'a note for the tenant')).option(...JSON_OPTION);

export const registerSupport = (program: Command): void => {
  const support = program.command('support').description("the tenants' support requests: read and work them");

  support
    .command('list')
    .description('every support request, oldest first')
    .option('--tenant <tenant-id>', 'only the requests of this tenant')
    .option('--status <list>', `comma-separated, from ${STATUSES.join(', ')}`)
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption & { tenant?: string; status?: string }) => {
        const statuses = options.status?.split(',').map((s) => s.trim());
        const unknown = statuses?.filter((s) => !(STATUSES as readonly string[]).includes(s)) ?? [];
        if (unknown.length > 0) return Promise.resolve(refuse(`error: unknown status ${unknown.join(', ')}; choose from ${STATUSES.join(', ')}`));
        return withStore(async (store) => {
          const rows = await withFreshReadModels(store, [supportRequestsProjection], (db) => listSupportRequests(db, { tenantId: options.tenant, statuses }));
          const listed = rows.map((r) => ({ id: r.requestId, tenant_id: r.tenantId, type: r.type, status: r.status, created_at: r.createdAt, modified_at: r.modifiedAt, note: r.note }));
          printListing(options, listed, [
            { header: 'ID', cell: (r) => r.id },
            { header: 'TENANT_ID', cell: (r) => r.tenant_id },
            { header: 'TYPE', cell: (r) => r.type },
            { header: 'STATUS', cell: (r) => r.status },
            { header: 'CREATED_AT', cell: (r) => r.created_at },
            { header: 'NOTE', cell: (r) => r.note ?? '-' },
          ]);
          return DONE;
        });
      }),
    );

  support
    .command('show')
    .description('one request: its message (opened with the KEK), state, notes and transitions')
    .argument('<id>', 'the support request')
    .option(...JSON_OPTION)
    .action(action((requestId: string, options: JsonOption) => withStore((store, config) => show(store, config, options, requestId))));

  noted(support.command('start').description('takes an OPEN request: IN_PROGRESS').argument('<id>', 'the support request'), false).action(work(startRequest, false));
  noted(
    support.command('export').description("DATA_DUMP: builds the tenant's archive (sealed, kept SUPPORT_EXPORT_RETENTION_SECONDS), then DONE").argument('<id>', 'the support request'),
    false,
  ).action(work(exportRequest, false, EVERYTHING));
  noted(
    support.command('erase').description("DELETION: erases the tenant's data (keys destroyed, blobs removed, API keys revoked), then DONE").argument('<id>', 'the support request'),
    false,
  ).action(work(eraseRequest, false, EVERYTHING));
  noted(support.command('resolve').description('RECTIFICATION or OTHER: records what was done, DONE').argument('<id>', 'the support request'), true).action(
    work((deps, id, note) => resolveRequest(deps, id, note ?? ''), true),
  );
  noted(support.command('reject').description('records why not: REJECTED').argument('<id>', 'the support request'), true).action(
    work((deps, id, note) => rejectRequest(deps, id, note ?? ''), true),
  );
};
