// The issuer's half of allocation: each credential gets a Status List entry at a random free
// index of the current list (the draft's privacy guidance: sequential indices would tell anyone
// holding two credentials, or the outsider counting lists, in which order they were issued).
// The index is taken by creating its `statusindex-` stream (never reused, on any instance); the
// offer's `credentialstatus-` stream then records which entries its credential carries. A list
// whose random picks keep landing on taken indices is treated as full and the next one started.
// Each credential issuer (the deployment's, each tenant's own) numbers and fills its own lists, so
// a list holds only its issuer's credentials and is served, and signed, under that issuer.
import { randomInt, randomUUID } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { latestStatusList } from '../../../projections/statusLists.js';
import * as credentialStatus from '../../../streams/credentialStatus.js';
import * as statusIndex from '../../../streams/statusIndex.js';
import { handleCommand, loadStream, type EventMetadata } from '../../eventstore/handle.js';
import type { EventStore } from '../../eventstore/port.js';
import type { Sqlite } from '../../sqlite/connection.js';
import type { Issuer } from '../issuer.js';
import { statusListPath } from './paths.js';

/** Random picks in one list before it counts as full: a list is left at about 85-90% taken. */
const PICKS_PER_LIST = 16;
/** Lists tried in one allocation; only a list size far below the issuance rate needs more. */
const LISTS_PER_ALLOCATION = 4;

export interface StatusAllocatorOptions {
  readonly store: EventStore;
  /** Read models: which list is the latest, and its size. */
  readonly db: Sqlite;
  /** STATUS_LIST_SIZE: the size of each list this instance starts. */
  readonly listSize: number;
}

export interface StatusAllocator {
  /**
   * The Status List entry of the credential about to be issued under `offerId`: the one already
   * allocated to the offer (a request that raced or retried), else a new one.
   */
  referenceFor(offerId: string, tenantId: string, now: Date, metadata: EventMetadata, issuer: Pick<Issuer, 'identifier' | 'tenantId'>): Promise<Either<string, credentialStatus.StatusReference>>;
}

export const createStatusAllocator = (options: StatusAllocatorOptions): StatusAllocator => {
  // The list this instance last allocated in, by issuer ('' the deployment's): the read model may not show a list started a moment ago.
  const current = new Map<string, { listId: number; size: number }>();

  const startingList = (issuerTenantId: string | undefined): { listId: number; size: number } => {
    const latest = latestStatusList(options.db, issuerTenantId);
    const known = latest ? { listId: latest.list_id, size: latest.size } : { listId: 1, size: options.listSize };
    const held = current.get(issuerTenantId ?? '');
    if (held !== undefined && held.listId >= known.listId) return held;
    current.set(issuerTenantId ?? '', known);
    return known;
  };

  const takeIndex = async (offerId: string, issuerTenantId: string | undefined, now: Date, metadata: EventMetadata): Promise<{ listId: number; idx: number } | undefined> => {
    let list = startingList(issuerTenantId);
    for (let lists = 0; lists < LISTS_PER_ALLOCATION; lists++) {
      for (let pick = 0; pick < PICKS_PER_LIST; pick++) {
        const idx = randomInt(list.size);
        const command: statusIndex.Command = {
          type: 'AllocateStatusIndex',
          data: { listId: list.listId, idx, listSize: list.size, offerId, ...(issuerTenantId === undefined ? {} : { issuerTenantId }), at: now.toISOString() },
        };
        const stream = statusIndex.statusIndexStream(list.listId, idx, issuerTenantId);
        const taken = await handleCommand(options.store, statusIndex.statusIndex, stream, command, { commandId: randomUUID(), metadata });
        // Left: taken already, or by a concurrent allocation of the same index; pick again.
        if (!isLeft(taken)) return { listId: list.listId, idx };
      }
      list = { listId: list.listId + 1, size: options.listSize };
      current.set(issuerTenantId ?? '', list);
    }
    return undefined;
  };

  return {
    async referenceFor(offerId, tenantId, now, metadata, issuer) {
      const stream = credentialStatus.credentialStatusStream(offerId);
      const loaded = await loadStream(options.store, credentialStatus.credentialStatus, stream);
      if (isLeft(loaded)) return left(`credential status stream ${loaded.left._tag}`);
      const existing = loaded.right.state;
      if (existing.status !== 'none') return right(existing.references[0]!);
      const entry = await takeIndex(offerId, issuer.tenantId, now, metadata);
      if (entry === undefined) return left(`no free status list index after ${LISTS_PER_ALLOCATION} lists`);
      const reference = { ...entry, uri: `${issuer.identifier}${statusListPath(entry.listId)}`, ...(issuer.tenantId === undefined ? {} : { issuerTenantId: issuer.tenantId }) };
      const command: credentialStatus.Command = {
        type: 'AllocateCredentialStatus',
        data: { offerId, tenantId, references: [reference], at: now.toISOString() },
      };
      const allocated = await handleCommand(options.store, credentialStatus.credentialStatus, stream, command, { commandId: randomUUID(), metadata, loaded: loaded.right });
      if (!isLeft(allocated)) return right(reference);
      // A concurrent request for the same offer allocated first: use its entry (only one of the
      // two can end in CredentialIssued); the index taken here stays unused, VALID like any other.
      const again = await loadStream(options.store, credentialStatus.credentialStatus, stream);
      return !isLeft(again) && again.right.state.status !== 'none' ? right(again.right.state.references[0]!) : left('credential status could not be recorded');
    },
  };
};
