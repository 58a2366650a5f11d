// Stream `quarantine-acknowledgments`: the operator's acknowledgments of events a projection set
// aside (src/quarantine.ts). A quarantine is recorded in each instance's own read models; the
// acknowledgment is recorded here, in the store, so that every instance, a rebuild and an instance
// started later all see it, and an auditor sees who accepted read models without which event.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';

export const category = 'quarantine';
export const acknowledgmentsStream = streamName(category, 'acknowledgments');

/** The event at `position` (`commit/prepare`) may stay out of the read models that set it aside. */
export const QuarantineAcknowledged = eventCodec('QuarantineAcknowledged', t.type({ position: t.string, acknowledgedAt: t.string }));
export type QuarantineAcknowledged = t.TypeOf<typeof QuarantineAcknowledged>;
