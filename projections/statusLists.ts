// Read model of the issuer's Status Lists: each list's size and a version that moves with every
// status change in it, and every allocated entry with its offer and Status Type. The public route
// builds each Status List Token from it (src/issuance/status/publication.ts), so a list is a projection of
// the credential-status events; only entries that are not VALID need reading to build one.
import * as credentialStatus from '../streams/credentialStatus.js';
import { decodeRecorded, inCategory } from '../streams/event.js';
import * as statusIndex from '../streams/statusIndex.js';
import { STATUS } from '../streams/statusType.js';
import { change, type Projection, type SqlChange, type SqlReader } from './projection.js';

/** The Status Type each change leaves in the list. */
const statusAfter = { CredentialSuspended: STATUS.SUSPENDED, CredentialRevoked: STATUS.INVALID, CredentialReinstated: STATUS.VALID } as const;

// `issuer`: the tenant whose own credential issuer holds the list ('' for the deployment's issuer,
// issue 38); each issuer numbers its own lists, and a list holds only its issuer's entries.
const setStatus = (offerId: string, status: number): SqlChange[] => [
  change('UPDATE status_list_entries SET status = ? WHERE offer_id = ?', status, offerId),
  change('UPDATE status_lists SET version = version + 1 WHERE (issuer, list_id) IN (SELECT issuer, list_id FROM status_list_entries WHERE offer_id = ?)', offerId),
];

export const statusListsProjection: Projection = {
  name: 'statusLists',
  tables: ['status_lists', 'status_list_entries'],
  schema: `CREATE TABLE IF NOT EXISTS status_lists (
    issuer  TEXT NOT NULL,
    list_id INTEGER NOT NULL,
    size    INTEGER NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (issuer, list_id)
  );
  CREATE TABLE IF NOT EXISTS status_list_entries (
    issuer   TEXT NOT NULL,
    list_id  INTEGER NOT NULL,
    idx      INTEGER NOT NULL,
    offer_id TEXT NOT NULL,
    status   INTEGER NOT NULL,
    PRIMARY KEY (issuer, list_id, idx)
  );
  CREATE INDEX IF NOT EXISTS status_list_entries_offer ON status_list_entries (offer_id);
  CREATE INDEX IF NOT EXISTS status_list_entries_set ON status_list_entries (issuer, list_id, idx) WHERE status <> 0;`,
  apply: (recorded) => {
    if (inCategory(statusIndex.category, recorded)) {
      const { listId, listSize, issuerTenantId } = decodeRecorded(statusIndex.statusIndex.codec, recorded).data;
      // The first allocation in a list fixes its size.
      return [change('INSERT OR IGNORE INTO status_lists (issuer, list_id, size, version) VALUES (?, ?, ?, 0)', issuerTenantId ?? '', listId, listSize)];
    }
    if (!inCategory(credentialStatus.category, recorded)) return [];
    const event = decodeRecorded(credentialStatus.credentialStatus.codec, recorded);
    switch (event.type) {
      case 'CredentialStatusAllocated':
        return event.data.references.map((r) =>
          change(
            'INSERT OR IGNORE INTO status_list_entries (issuer, list_id, idx, offer_id, status) VALUES (?, ?, ?, ?, ?)',
            r.issuerTenantId ?? '',
            r.listId,
            r.idx,
            event.data.offerId,
            STATUS.VALID,
          ),
        );
      case 'CredentialSuspended':
      case 'CredentialRevoked':
      case 'CredentialReinstated':
        return setStatus(event.data.offerId, statusAfter[event.type]);
    }
  },
};

export interface StatusListRow {
  readonly list_id: number;
  readonly size: number;
  readonly version: number;
}

/** Whose lists: the tenant whose own credential issuer holds them, undefined for the deployment's issuer. */
const issuerKey = (issuerTenantId: string | undefined): string => issuerTenantId ?? '';

export const findStatusList = (db: SqlReader, listId: number, issuerTenantId?: string): StatusListRow | undefined =>
  db.get<StatusListRow & Record<string, number>>('SELECT list_id, size, version FROM status_lists WHERE issuer = ? AND list_id = ?', [issuerKey(issuerTenantId), listId]);

/** The issuer's list allocations go to unless it is full: the one it started last. */
export const latestStatusList = (db: SqlReader, issuerTenantId?: string): StatusListRow | undefined =>
  db.get<StatusListRow & Record<string, number>>('SELECT list_id, size, version FROM status_lists WHERE issuer = ? ORDER BY list_id DESC LIMIT 1', [issuerKey(issuerTenantId)]);

/** The entries of a list whose status is not VALID, as (idx, Status Type). */
export const nonValidEntries = (db: SqlReader, listId: number, issuerTenantId?: string): [number, number][] =>
  db
    .all<{ idx: number; status: number }>('SELECT idx, status FROM status_list_entries WHERE issuer = ? AND list_id = ? AND status <> 0', [issuerKey(issuerTenantId), listId])
    .map((r) => [r.idx, r.status]);
