// A poison event: a draft revision whose data nests deeper than SQLite's JSON functions accept
// (their limit is 1000 levels), appended straight to the store as an old version or a hostile
// writer could, past any check at the HTTP edge.
import { randomUUID } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { draftStream } from '../../streams/draft.js';
import type { EventStore, Json, Position } from '../../src/eventstore/port.js';

export const POISON_DEPTH = 1100;

export const deeplyNested = (depth: number): Json => {
  let value: Json = { leaf: true };
  for (let i = 0; i < depth; i++) value = { nested: value };
  return value;
};

/** Appends to the draft's stream a revision that keeps its data but nests its schema POISON_DEPTH deep. */
export const appendPoisonRevision = async (store: EventStore, draftId: string): Promise<Position> => {
  const read = await store.readStream(draftStream(draftId));
  if (read._tag !== 'Found') throw new Error(`no draft ${draftId}`);
  const last = read.events[read.events.length - 1]!;
  const current = (last.data as { data: Record<string, Json> }).data;
  const appended = await store.append(
    draftStream(draftId),
    [{ id: randomUUID(), type: 'DraftUpdated', data: { draftId, data: { ...current, schema: deeplyNested(POISON_DEPTH) }, updatedAt: new Date().toISOString() } }],
    last.revision,
  );
  if (isLeft(appended)) throw new Error(`poison not appended: ${appended.left._tag}`);
  return appended.right.position;
};
