// The event store as the service uses it, timed: every append is observed with its outcome, and
// the appends that start or end a flow count it. Counting at the append (not from `$all`) counts
// each flow once, on the instance that moved it, so the sum over instances is the deployment's.
import { isRight } from 'fp-ts/lib/Either.js';
import { performance } from 'node:perf_hooks';
import type { EventStore } from '../eventstore/port.js';
import { flowStepOf } from './flows.js';
import type { Metrics } from './metrics.js';

export const instrumentedStore = (store: EventStore, metrics: Metrics): EventStore => ({
  async append(streamId, events, expectedRevision) {
    const started = performance.now();
    let outcome = 'error';
    try {
      const result = await store.append(streamId, events, expectedRevision);
      if (isRight(result)) {
        outcome = 'ok';
        for (const event of events) {
          const step = flowStepOf(streamId, event.type);
          if (step?.step === 'created') metrics.flows.created.inc({ flow: step.flow });
          else if (step) metrics.flows.ended.inc({ flow: step.flow, status: step.step });
        }
      } else {
        outcome = result.left._tag === 'WrongExpectedRevision' ? 'wrong_expected_revision' : 'stream_deleted';
      }
      return result;
    } finally {
      metrics.eventStore.appendDuration.observe({ outcome }, (performance.now() - started) / 1000);
    }
  },
  readStream: (streamId, options) => store.readStream(streamId, options),
  readAll: (options) => store.readAll(options),
  subscribeToAll: (options) => store.subscribeToAll(options),
  tombstone: (streamId, expectedRevision) => store.tombstone(streamId, expectedRevision),
  ...(store.appendedElsewhere ? { appendedElsewhere: store.appendedElsewhere } : {}),
  close: () => store.close(),
});
