// The trusted lists this instance holds, and how it keeps them current.
//
// - `load` starts from the versions on record (each document read back from the blob store and
//   verified again with today's pinned certificates), so a restart during a publisher outage
//   serves the last recorded snapshot instead of trusting nothing.
// - `refresh` fetches every configured list, and for a LoTL every list it points to (only the
//   XML ones, only the configured territories), each verified with the certificates its pointer
//   names; each result is recorded through the `trustList` decider. A list that fails (fetch,
//   size, time, DOCTYPE, signature, signer, sequence rewind) is logged with its source and
//   changes nothing: the version held stays in use, flagged `cachedFallback`.
// - `snapshot` is what verification reads: the lists held, indexed once per change of version.
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import type { TrustListVersion } from '../../streams/trustList.js';
import type { ListFormat, StatusMap, TrustListSource } from '../config/trust.js';
import type { Logger } from '../log.js';
import { FetchFailure } from '../http/readBounded.js';
import { fetchBounded, type FetchBounds } from './boundedFetch.js';
import { listKey, readRecordedDocument, recordedVersion, recordFetchedVersion, sha256Hex, type ListRecordDeps } from './listRecord.js';
import type { Freshness, TrustSnapshot } from './matching.js';
import { SnapshotIndex, type ListEntry } from './snapshotIndex.js';
import { categoryOf } from './serviceMapping.js';
import { followedPointers, type TrustList } from './trustList.js';
import { verifyTrustList } from './verifyTrustList.js';

export interface TrustListStoreOptions extends ListRecordDeps {
  readonly sources: readonly TrustListSource[];
  readonly bounds: FetchBounds;
  readonly stalenessWindowMs: number;
  readonly log: Logger;
  /** Who records versions, for the events' metadata: `service` or `ops`. */
  readonly actor: string;
  /** Data recorded before this instant came from the record, not from a fetch by this instance. */
  readonly startedAt: Date;
  /** Told of every fetch of a list and whether it was accepted (metrics). */
  readonly onFetch?: (sourceId: string, outcome: FetchOutcome) => void;
}

export type FetchOutcome = 'accepted' | 'rejected';

/** One list to fetch: a configured source, or a list a LoTL points to. */
interface Target {
  readonly sourceId: string;
  readonly key: string;
  readonly format: ListFormat;
  readonly url: string;
  readonly parentUrl: string | undefined;
  readonly territory: string | undefined;
  readonly pinned: readonly Uint8Array[];
  readonly statusMap: StatusMap | undefined;
}

interface Held {
  readonly entry: ListEntry;
  readonly version: TrustListVersion;
  /** The version's instants in epoch milliseconds, parsed once: freshness is asked per presentation. */
  readonly fetchedAt: number;
  readonly nextUpdate: number;
}

/** What `ops trust-lists` shows for one list. */
export interface ListStatus {
  readonly source: string;
  readonly url: string;
  readonly territory: string | undefined;
  readonly sequenceNumber: number | undefined;
  readonly issuedAt: string | undefined;
  readonly nextUpdate: string | undefined;
  readonly fetchedAt: string | undefined;
  readonly state: 'current' | 'past next update' | 'cached fallback' | 'stale' | 'missing';
  readonly lastFailure: string | undefined;
  /** SHA-256 (hex) of the version held: what verification outcomes name. */
  readonly digest?: string;
  /** The services the held version lists, by category (`PID`, `WALLET_PROVIDER`...; `other` for a type no category maps). */
  readonly entities?: Readonly<Record<string, number>>;
}

const entitiesByCategory = (entry: ListEntry): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const service of entry.list.services) {
    const category = categoryOf(service.type) ?? 'other';
    counts[category] = (counts[category] ?? 0) + 1;
  }
  return counts;
};

// Lists a LoTL points to are fetched a few at a time: one slow publisher must not hold up the
// others, and 30 at once would be a burst on a small machine.
const PARALLEL_FETCHES = 4;

const forEachLimited = async <T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
};

const sourceTarget = (source: TrustListSource): Target => ({
  sourceId: source.id,
  key: listKey(source.id),
  format: source.format,
  url: source.url,
  parentUrl: undefined,
  territory: undefined,
  pinned: source.signingCertificates,
  statusMap: source.statusMap,
});

export class TrustListStore {
  private readonly held = new Map<string, Held>();
  private readonly failures = new Map<string, { readonly at: Date; readonly reason: string }>();
  private current: TrustSnapshot;

  constructor(private readonly options: TrustListStoreOptions) {
    this.current = this.build();
  }

  /** The lists in use now. */
  snapshot(): TrustSnapshot {
    return this.current;
  }

  /** Every list this instance follows: the configured ones and those their LoTLs point to. */
  private targets(): Target[] {
    return this.options.sources.flatMap((source) => {
      const own = sourceTarget(source);
      const lotl = source.format === 'lotl' ? this.held.get(source.url) : undefined;
      if (!lotl) return [own];
      return [own, ...followedPointers(lotl.entry.list, source.url, source.territories).map((pointer): Target => ({
        sourceId: source.id,
        key: listKey(source.id, pointer.url),
        format: 'tl',
        url: pointer.url,
        parentUrl: source.url,
        territory: pointer.territory,
        pinned: pointer.signingCertificates,
        statusMap: source.statusMap,
      }))];
    });
  }

  /** Whether a version of every configured list is held (loaded from the record or fetched). */
  holdsEverySource(): boolean {
    return this.options.sources.every((source) => this.held.has(source.url));
  }

  /** URLs a DCQL `etsi_tl` authority may name. */
  knownUrls(): ReadonlySet<string> {
    return new Set(this.targets().map((t) => t.url));
  }

  private build(): TrustSnapshot {
    const entries = [...this.held.values()].map((h) => h.entry);
    const index = new SnapshotIndex(entries);
    const missing = this.targets().filter((t) => !this.held.has(t.url)).map((t) => t.url);
    const lineage = (list: ListEntry): ListEntry[] => {
      const parent = list.parentUrl === undefined ? undefined : this.held.get(list.parentUrl)?.entry;
      return parent ? [list, parent] : [list];
    };
    return {
      index,
      missing,
      lineage,
      freshness: (list, now) => this.freshness(lineage(list), now),
    };
  }

  private freshness(lineage: readonly ListEntry[], now: Date): Freshness {
    let fetchedAt = Infinity;
    let cachedFallback = false;
    let pastNextUpdate = false;
    for (const list of lineage) {
      const held = this.held.get(list.url);
      if (!held) return { usable: false, cachedFallback: false, pastNextUpdate: false, fetchedAt: new Date(0) };
      fetchedAt = Math.min(fetchedAt, held.fetchedAt);
      const failure = this.failures.get(list.url)?.at.getTime() ?? 0;
      cachedFallback ||= held.fetchedAt < Math.max(this.options.startedAt.getTime(), failure);
      pastNextUpdate ||= now.getTime() > held.nextUpdate;
    }
    return { usable: now.getTime() - fetchedAt <= this.options.stalenessWindowMs, cachedFallback, pastNextUpdate, fetchedAt: new Date(fetchedAt) };
  }

  private hold(target: Target, list: TrustList, version: TrustListVersion): void {
    this.held.set(target.url, {
      entry: { sourceId: target.sourceId, format: target.format, url: target.url, parentUrl: target.parentUrl, list, digest: version.digest, statusMap: target.statusMap },
      version,
      fetchedAt: Date.parse(version.fetchedAt),
      nextUpdate: version.nextUpdate === null ? Infinity : Date.parse(version.nextUpdate),
    });
  }

  private reject(target: Target, reason: string, now: Date): void {
    this.failures.set(target.url, { at: now, reason });
    this.options.log.warn('trust list rejected', { source: target.sourceId, url: target.url, reason });
  }

  private async verified(target: Target, document: Uint8Array): Promise<Either<string, TrustList>> {
    const list = await verifyTrustList(document, target.format, target.pinned);
    if (list._tag === 'Left') return list;
    if (target.territory !== undefined && list.right.territory !== undefined && list.right.territory !== target.territory) {
      return left(`states territory ${list.right.territory}, but its LoTL pointer is for ${target.territory}`);
    }
    return right(list.right);
  }

  /** Fetches, verifies and records one list: the list and its version on record, or why not. */
  private async fetchAndRecord(target: Target, now: Date): Promise<Either<string, { list: TrustList; version: TrustListVersion }>> {
    let document: Uint8Array;
    try {
      document = await fetchBounded(target.url, this.options.bounds);
    } catch (err) {
      if (!(err instanceof FetchFailure)) throw err;
      return left(err.message);
    }
    const list = await this.verified(target, document);
    if (list._tag === 'Left') return list;
    const recorded = await recordFetchedVersion(
      this.options,
      target.key,
      {
        sourceId: target.sourceId,
        url: target.url,
        format: target.format,
        parentUrl: target.parentUrl ?? null,
        territory: list.right.territory ?? target.territory ?? null,
        listType: list.right.listType,
        operator: list.right.operator,
        sequenceNumber: list.right.sequenceNumber,
        issuedAt: list.right.issuedAt.toISOString(),
        nextUpdate: list.right.nextUpdate?.toISOString() ?? null,
        digest: sha256Hex(document),
        fetchedAt: now.toISOString(),
      },
      document,
      { actor: this.options.actor },
    );
    if (recorded._tag === 'Left') {
      return left(`sequence number ${recorded.left.fetched} is lower than the recorded ${recorded.left.recorded}: refused as a rewind`);
    }
    return right({ list: list.right, version: recorded.right });
  }

  /**
   * Refreshes one list; true when the version held changed. When the fetch fails, a newer
   * version recorded meanwhile (by `ops trust-lists refresh` or another instance) is adopted.
   */
  private async refreshOne(target: Target, now: Date): Promise<boolean> {
    const fetched = await this.fetchAndRecord(target, now);
    this.options.onFetch?.(target.sourceId, fetched._tag === 'Left' ? 'rejected' : 'accepted');
    if (fetched._tag === 'Left') {
      this.reject(target, fetched.left, now);
      return this.adoptRecorded(target);
    }
    const { list, version } = fetched.right;
    const changed = this.held.get(target.url)?.version.digest !== version.digest;
    this.hold(target, list, version);
    this.failures.delete(target.url);
    if (changed) {
      this.options.log.info('trust list version accepted', { source: target.sourceId, url: target.url, sequenceNumber: version.sequenceNumber, digest: version.digest });
    }
    return changed;
  }

  private async adoptRecorded(target: Target): Promise<boolean> {
    const version = await recordedVersion(this.options.store, target.key);
    if (version === undefined || version.digest === this.held.get(target.url)?.version.digest) return false;
    return this.loadOne(target);
  }

  /** Reads one list back from the record; true when one was held. */
  private async loadOne(target: Target): Promise<boolean> {
    const version = await recordedVersion(this.options.store, target.key);
    if (version === undefined || version.url !== target.url) return false;
    const document = await readRecordedDocument(this.options.blobs, version);
    const list = document._tag === 'Left' ? document : await this.verified(target, document.right);
    if (list._tag === 'Left') {
      this.options.log.error('recorded trust list not usable', { source: target.sourceId, url: target.url, reason: list.left });
      return false;
    }
    this.hold(target, list.right, version);
    return true;
  }

  /** Drops lists no LoTL points to any more; true when one was dropped. */
  private prune(): boolean {
    const wanted = new Set(this.targets().map((t) => t.url));
    const dropped = [...this.held.keys()].filter((url) => !wanted.has(url));
    for (const url of dropped) this.held.delete(url);
    return dropped.length > 0;
  }

  /** Starts from the recorded versions: the configured lists first, then those their LoTLs point to. */
  async load(): Promise<void> {
    for (const source of this.options.sources) await this.loadOne(sourceTarget(source));
    const pointed = this.targets().filter((t) => t.parentUrl !== undefined);
    await forEachLimited(pointed, PARALLEL_FETCHES, async (target) => {
      await this.loadOne(target);
    });
    this.current = this.build();
  }

  /**
   * Fetches every list now. The snapshot is rebuilt only when a version changed, so what the
   * index learnt about returning issuers survives a refresh that found nothing new.
   */
  async refresh(now: Date): Promise<void> {
    const changes = await Promise.all(this.options.sources.map((source) => this.refreshOne(sourceTarget(source), now)));
    changes.push(this.prune());
    const pointed = this.targets().filter((t) => t.parentUrl !== undefined);
    await forEachLimited(pointed, PARALLEL_FETCHES, async (target) => {
      changes.push(await this.refreshOne(target, now));
    });
    if (changes.includes(true) || this.current.missing.length > 0) this.current = this.build();
  }

  /** Every list followed, as `ops trust-lists` shows it. */
  status(now: Date): ListStatus[] {
    return this.targets().map((target) => {
      const held = this.held.get(target.url);
      const failure = this.failures.get(target.url)?.reason;
      if (!held) {
        return { source: target.sourceId, url: target.url, territory: target.territory, sequenceNumber: undefined, issuedAt: undefined, nextUpdate: undefined, fetchedAt: undefined, state: 'missing', lastFailure: failure };
      }
      const fresh = this.current.freshness(held.entry, now);
      const state = !fresh.usable ? 'stale' : fresh.cachedFallback ? 'cached fallback' : fresh.pastNextUpdate ? 'past next update' : 'current';
      const { version } = held;
      return {
        source: target.sourceId,
        url: target.url,
        territory: version.territory ?? undefined,
        sequenceNumber: version.sequenceNumber,
        issuedAt: version.issuedAt,
        nextUpdate: version.nextUpdate ?? undefined,
        fetchedAt: version.fetchedAt,
        state,
        lastFailure: failure,
        digest: held.entry.digest,
        entities: entitiesByCategory(held.entry),
      };
    });
  }

  /**
   * How long until the next refresh: the interval, or sooner when a list reaches its NextUpdate
   * first. A list already past it waits for the interval like the rest: a publisher late with
   * its next list is never polled in a tight loop.
   */
  nextRefreshDelay(now: Date, intervalMs: number): number {
    const upcoming = [...this.held.values()].map((h) => h.nextUpdate - now.getTime()).filter((ms) => ms > 0 && ms !== Infinity);
    return Math.max(1000, Math.min(intervalMs, ...upcoming));
  }
}
