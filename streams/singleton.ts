// A tenant's singleton resource (`/verifier`, `/settings`): one per tenant, which exists from the
// tenant's creation at revision 1 with nothing set. Revision 1 is implicit until the first change:
// that change records it (at the tenant's creation time) together with itself, so a store written
// before the kind existed needs no backfill and every revision is still one event of the stream.
import { createHash } from 'node:crypto';
import { left, map } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import type { Event } from './event.js';
import type { AnyKindCommand, ResourceDecider, ResourceError, Target } from './resource.js';

/** The singleton's id: a UUID derived from its kind and tenant, distinct for every pair, the same on every instance. */
export const singletonId = (kind: string, tenantId: string): string => {
  const hex = createHash('sha256').update(`${kind}\n${tenantId}`).digest('hex');
  // RFC 9562 version 8 (custom), variant 10.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

export const singletonStream = (category: string, kind: string, tenantId: string): string => streamName(category, singletonId(kind, tenantId));

/** A change of a singleton names when its tenant was created: the time of the implicit revision 1. */
export type SingletonTarget = Target & { readonly tenantCreatedAt: string };

const createdAtOf = (command: AnyKindCommand): string | undefined => {
  const at = (command.data as Partial<SingletonTarget>).tenantCreatedAt;
  return typeof at === 'string' ? at : undefined;
};

/**
 * The kind's decider with revision 1 implicit: on a stream with no event, a change is decided on
 * the revision 1 that `created` records, and both are appended.
 */
export const singletonKind = <E extends Event, C extends AnyKindCommand>(
  decider: ResourceDecider<E, C, ResourceError>,
  created: (tenantId: string, id: string, at: string) => E,
): ResourceDecider<E, C, ResourceError> => ({
  ...decider,
  decide: (command, state) => {
    if (state.status !== 'none') return decider.decide(command, state);
    const at = createdAtOf(command);
    const target = command.data as Partial<Target>;
    // Only a change naming its tenant's creation (a PUT) makes revision 1; nothing else has a singleton to change.
    if (at === undefined || target.tenantId === undefined || target.id === undefined) return left({ _tag: 'NotFound' });
    const first = created(target.tenantId, target.id, at);
    return map((events: readonly E[]) => [first, ...events])(decider.decide(command, decider.evolve(state, first)));
  },
});

/** The implicit revision 1 of the tenant's singleton, as the read side shows it before any change. */
export const implicitRevision = <E extends Event, C>(decider: ResourceDecider<E, C, ResourceError>, first: E) => decider.envelopeOf(decider.evolve(decider.initialState, first));
