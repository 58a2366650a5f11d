// A kind of the resource API: its path, the stream category its resources live in, and its
// decider (the rules and the events its streams record for the changes every kind shares).
import type { Either } from 'fp-ts/lib/Either.js';
import type { Scope } from '../../streams/apiKey.js';
import type { Event } from '../../streams/event.js';
import type { AnyKindCommand, Envelope, ResourceDecider, ResourceError } from '../../streams/resource.js';
import type { DomainError as SigningKeyError } from '../../streams/signingKey.js';
import type { EventMetadata } from '../eventstore/handle.js';
import type { ApiLine } from './oasVersion.js';
import type { DataSearch } from './search.js';

/** `D`: what the kind's decider refuses, the shared refusals and the kind's own (a signing key's certificate rules). */
export interface VersionedKind<E extends Event, C extends AnyKindCommand, D extends { readonly _tag: string } = ResourceError> {
  /** The path segment: `/api-keys/...`. */
  readonly path: string;
  /** `kind.name` in the envelope. */
  readonly name: string;
  /** Scope a key needs for every route of the kind. */
  readonly scope: Scope;
  /** The kind's rules and the events its stream records (streams/<kind>.ts). */
  readonly decider: ResourceDecider<E, C, D>;
  readonly streamOf: (id: string) => string;
  /** The envelope as a request of this API line sees it (opening sealed data, the line's shape); default as stored. */
  readonly render?: (envelope: Envelope, line: ApiLine) => Promise<Envelope>;
  /** What `POST /{path}/search` may filter and sort on in `data`. */
  readonly search: DataSearch;
  /**
   * Writes on other streams that a delete or restore of the kind must make (a file's content
   * claim, src/resources/fileContent.ts). Runs once the change is decided (404, 412 and the state
   * conflicts come first) and before it is appended, with the envelope before the change: a Left
   * refuses the change with a 409 of that detail; of the Right, `appended` runs once the change
   * is appended, `notAppended` when the store certainly refused it.
   */
  readonly lifecycle?: (op: 'delete' | 'restore', envelope: Envelope, at: string, metadata: EventMetadata) => Promise<Either<string, LifecycleSequel>>;
}

/** What a kind's lifecycle hook does once the resource's own event is appended, or is not. */
export interface LifecycleSequel {
  readonly appended: () => Promise<void>;
  readonly notAppended: () => Promise<void>;
}

/** What a kind's decider may refuse: the refusals every kind shares, and the kinds' own. */
export type KindRefusal = SigningKeyError;
