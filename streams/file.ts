// Stream category `file`: one stream per file resource of the resource API, `file-<file id>`.
// Every event is one revision of the file's envelope (streams/resource.ts). The bytes live in the
// blob store under `digest_multibase`; the file's content never changes after creation.
import * as t from 'io-ts';
import { streamName } from './kernel.js';
import { eventCodec } from './event.js';
import { sharedEvents, StringMap, resourceKind, type ResourceChange } from './resource.js';

export const category = 'file';
export const fileStream = (fileId: string): string => streamName(category, fileId);

export const FILE_KIND = { name: 'file', version: 1 } as const;

export const FileCreated = eventCodec(
  'FileCreated',
  t.type({
    fileId: t.string,
    tenantId: t.string,
    /** The upload the bytes came from (stream `blob-<blob id>`). */
    blobId: t.string,
    contentType: t.string,
    digestMultibase: t.string,
    filename: t.string,
    filesize: t.number,
    annotations: StringMap,
    labels: StringMap,
    createdAt: t.string,
  }),
);

/** The resource API's shared changes: FileAnnotationsUpdated, FileLabelsUpdated, FileDeleted, FileRestored, each `{fileId, ...}` (streams/resource.ts). */
const shared = sharedEvents('File', 'fileId');

/** Every event a file stream can hold. */
export const FileEvent = t.union([FileCreated, ...shared.codecs]);
export type FileEvent = t.TypeOf<typeof FileEvent>;

export const fileResourceChange = (event: FileEvent): ResourceChange => {
  if (shared.is(event)) return shared.changeOf(event);
  const d = event.data;
  return {
    op: 'created',
    id: d.fileId,
    tenantId: d.tenantId,
    kind: FILE_KIND,
    at: d.createdAt,
    annotations: d.annotations,
    labels: d.labels,
    data: { content_type: d.contentType, digest_multibase: d.digestMultibase, filename: d.filename, filesize: d.filesize },
  };
};

type Created = t.TypeOf<typeof FileCreated>['data'];

/** POST /files: the file made from an upload. */
export type CreateFile = { readonly type: 'CreateFile'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } };

/** The file kind's rules: created once, then the changes every kind shares (streams/resource.ts). */
export const file = resourceKind<FileEvent, CreateFile>({
  category,
  codec: FileEvent,
  changeOf: fileResourceChange,
  create: { type: 'CreateFile', created: ({ data: { at, ...created } }) => ({ type: 'FileCreated', data: { ...created, createdAt: at } }) },
  shared: shared.events,
});
