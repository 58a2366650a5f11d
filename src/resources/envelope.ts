// The resource envelope on the wire (the resource API specification, "Common resource envelope").
import type { Json } from '../eventstore/port.js';
import { etagOf, type Envelope } from '../../streams/resource.js';
import type { Reply } from './reply.js';

export const etagOfEnvelope = (envelope: Envelope): string => etagOf(envelope.id, envelope.revision);

export const wireEnvelope = (envelope: Envelope, extraData: { readonly [key: string]: Json } = {}): { [key: string]: Json } => ({
  id: envelope.id,
  kind: { name: envelope.kind.name, version: envelope.kind.version },
  revision: envelope.revision,
  etag: etagOfEnvelope(envelope),
  created_at: envelope.createdAt,
  modified_at: envelope.modifiedAt,
  deleted_at: envelope.deletedAt,
  annotations: envelope.annotations,
  labels: envelope.labels,
  data: { ...envelope.data, ...extraData },
});

/** A single resource answer: the envelope with its ETag. */
export const resourceReply = (envelope: Envelope, status = 200, headers: Readonly<Record<string, string>> = {}): Reply => ({
  status,
  body: wireEnvelope(envelope),
  headers: { ETag: etagOfEnvelope(envelope), ...headers },
});
