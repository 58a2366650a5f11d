// Projection lag, read at scrape time: how far the runner's checkpoint is behind the end of
// `$all`, and how long the oldest event it has not applied has been waiting. Two small reads of
// the store per scrape, none of them scanning.
import { comparePositions, parsePosition, START, type EventStore } from '../eventstore/port.js';
import type { ReadModels } from '../readside/readModels.js';
import type { Metrics } from './metrics.js';

export const observeProjectionLag = (metrics: Metrics, store: EventStore, runner: ReadModels, name: string): void => {
  const labels = { runner: name };
  const { lagPositions, lagSeconds } = metrics.projections;
  metrics.refreshOnScrape(
    `projection lag of ${name}`,
    async () => {
      const checkpoint = parsePosition(runner.status().checkpoint) ?? START;
      const [head] = await store.readAll({ direction: 'backwards', maxCount: 1 });
      if (head === undefined || comparePositions(head.position, checkpoint) <= 0) {
        lagPositions.set(labels, 0);
        lagSeconds.set(labels, 0);
        return;
      }
      // `fromPosition` is inclusive: the checkpoint's own event comes first, unless it is START.
      const next = (await store.readAll({ fromPosition: checkpoint, maxCount: 2 })).find((e) => comparePositions(e.position, checkpoint) > 0);
      lagPositions.set(labels, Number(head.position.commit - checkpoint.commit));
      lagSeconds.set(labels, next ? Math.max(0, Date.now() - next.created.getTime()) / 1000 : 0);
    },
    () => {
      lagPositions.set(labels, Number.NaN);
      lagSeconds.set(labels, Number.NaN);
    },
  );
};
