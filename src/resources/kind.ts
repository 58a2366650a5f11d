// A kind of the resource API: its path, the stream category its resources live in, and the
// events its streams record for the changes every kind shares.
import type { Context } from 'koa';
import type { Scope } from '../../streams/apiKey.js';
import type { Event, StreamContract } from '../../streams/event.js';
import type { Envelope, ResourceData, StringMap } from '../../streams/resource.js';
import type { DataSearch } from './search.js';

export interface VersionedKind<State, E extends Event> {
  /** The path segment: `/api-keys/...`. */
  readonly path: string;
  /** `kind.name` in the envelope. */
  readonly name: string;
  /** Scope a key needs for every route of the kind. */
  readonly scope: Scope;
  readonly contract: StreamContract<State, E>;
  readonly streamOf: (id: string) => string;
  readonly envelopeOf: (state: State) => Envelope | undefined;
  /** The envelope as this request sees it (opening sealed data, the API line's shape); default as stored. */
  readonly render?: (envelope: Envelope, ctx: Context) => Promise<Envelope>;
  /** Whether the resource takes no more changes (a published schema): every write is 409. */
  readonly frozen?: (envelope: Envelope) => boolean;
  /** What `POST /{path}/search` may filter and sort on in `data`. */
  readonly search: DataSearch;
  readonly events: {
    readonly annotations: (id: string, annotations: StringMap, at: string) => E;
    readonly labels: (id: string, labels: StringMap, at: string) => E;
    readonly deleted: (id: string, at: string) => E;
    readonly restored: (id: string, at: string) => E;
    /** The kind's own change of `data`, for kinds that have one. */
    readonly data?: (id: string, data: ResourceData, at: string) => E;
  };
}
