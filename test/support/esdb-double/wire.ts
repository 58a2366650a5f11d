// Wire mapping: protobuf messages to and from the log's terms.
import type { StoredEvent } from './events.js';
import { sharedPb, streamsPb, type ReadResp, type SharedPbModule } from './protos.js';

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

export const streamNameOf = (identifier: SharedPbModule.StreamIdentifier | undefined): string =>
  Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');

export const streamIdentifier = (streamId: string): SharedPbModule.StreamIdentifier =>
  new sharedPb.StreamIdentifier().setStreamName(utf8(streamId));

const hex64 = (signed: string): string => BigInt.asUintN(64, BigInt(signed)).toString(16).padStart(16, '0');

/** Accepts both UUID encodings a client may send; the log keys events by the canonical string. */
export const parseUuid = (uuid: SharedPbModule.UUID | undefined): string => {
  if (!uuid) throw new Error('missing UUID');
  const structured = uuid.getStructured();
  if (!structured) return uuid.getString().toLowerCase();
  const h = hex64(structured.getMostSignificantBits()) + hex64(structured.getLeastSignificantBits());
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

const toUuid = (id: string, structured: boolean): SharedPbModule.UUID => {
  const uuid = new sharedPb.UUID();
  if (!structured) return uuid.setString(id);
  const h = id.replaceAll('-', '');
  const signed = (part: string): string => BigInt.asIntN(64, BigInt(`0x${part}`)).toString();
  const bits = new sharedPb.UUID.Structured()
    .setMostSignificantBits(signed(h.slice(0, 16)))
    .setLeastSignificantBits(signed(h.slice(16)));
  return uuid.setStructured(bits);
};

/** Position messages of the different calls all carry the same two fields. */
export const withPosition = <P extends { setCommitPosition(v: string): P; setPreparePosition(v: string): P }>(
  message: P,
  position: bigint,
): P => message.setCommitPosition(position.toString()).setPreparePosition(position.toString());

export const eventResponse = (e: StoredEvent, structuredIds: boolean): ReadResp => {
  const recorded = withPosition(new streamsPb.ReadResp.ReadEvent.RecordedEvent(), e.position)
    .setId(toUuid(e.id, structuredIds))
    .setStreamIdentifier(streamIdentifier(e.streamId))
    .setStreamRevision(e.revision.toString())
    .setData(e.data)
    .setCustomMetadata(e.metadata);
  recorded.getMetadataMap().set('type', e.type).set('created', e.created.toString()).set('content-type', e.contentType);
  // A self-committed event's position is known on every read, so the server always sends it.
  const event = new streamsPb.ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(e.position.toString());
  return new streamsPb.ReadResp().setEvent(event);
};
