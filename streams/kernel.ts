// The kernel the write side and the store share: what an event is on the wire (Json, the recorded
// event and its place in `$all`, written `commit/prepare`), how streams are named, and how logs
// show a stream. Everything under `streams/` depends on this and nothing in `src/`; the event
// store port (src/eventstore/port.ts) builds on it, and projections/ reads positions with it.
import { createHash, timingSafeEqual } from 'node:crypto';

/** A JSON value as it travels in event data and metadata. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json | undefined };

/** Whether a value parsed from JSON (or any unknown) is an object: not null, not an array. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A place in `$all`. EventStoreDB positions are a (commit, prepare) pair of log offsets; the
 * embedded store uses its global sequence for both.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** Positions travel as `commit/prepare` strings in JSON, logs and checkpoints. */
export const formatPosition = (p: Position): string => `${p.commit}/${p.prepare}`;

export const parsePosition = (text: string): Position | undefined => {
  const m = /^(\d{1,20})\/(\d{1,20})$/.exec(text);
  return m ? { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) } : undefined;
};

/**
 * An event to append. `id` is a UUID chosen by the writer: it makes a retried append idempotent.
 * With an exact or `no_stream` expectation that always holds; with `any`, EventStoreDB only
 * remembers recent ids, so writers that must not duplicate use an exact expectation.
 */
export interface EventData {
  readonly id: string;
  readonly type: string;
  readonly data: Json;
  readonly metadata?: Json;
}

/** An event as recorded. Stream revisions count from 0. */
export interface RecordedEvent {
  readonly streamId: string;
  readonly id: string;
  readonly type: string;
  readonly revision: number;
  readonly position: Position;
  readonly data: Json;
  readonly metadata: Json;
  readonly created: Date;
}

/** The stream name convention shared with EventStoreDB's `$ce-` projections: `category-id`. */
/** A name-based UUID (RFC 9562 section 5.5, version 5): the same namespace (16 bytes) and name give the same id. */
export const nameBasedUuid = (namespace: Buffer, name: string): string => {
  const hash = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

export const streamName = (category: string, id: string): string => {
  if (!/^[a-z][a-zA-Z0-9_]*$/.test(category)) throw new Error(`invalid stream category ${category}`);
  return `${category}-${id}`;
};

// Log lines and error messages never carry a bearer value: a presentation's `state` or an
// offer's id lets whoever holds it act in that flow (fetch the request, resolve the offer and its
// pre-authorized code), and a log is read by more people than the flow's parties. An operator
// still needs to find one flow's lines, so they carry a reference instead: the first 16 hex
// digits of the value's SHA-256, which the integrator computes from the value it holds
// (`printf %s "$STATE" | sha256sum | cut -c1-16`) and which gives nothing away of a 256-bit
// state or a random UUID.
export const logRef = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16);

/**
 * A stream name as logs and error messages show it: the category as is, the id as its logRef
 * (`presentation-<stateRef>`). Every stream is shown this way, so nobody has to know which ids
 * are secrets.
 */
export const streamRef = (streamId: string): string => {
  const dash = streamId.indexOf('-');
  return dash < 0 ? logRef(streamId) : `${streamId.slice(0, dash)}-${logRef(streamId.slice(dash + 1))}`;
};

/** Whether two base64url hashes or MACs are equal, in time that does not depend on where they differ. */
export const sameHash = (a: string, b: string): boolean => {
  const x = Buffer.from(a, 'base64url');
  const y = Buffer.from(b, 'base64url');
  return x.length === y.length && timingSafeEqual(x, y);
};
