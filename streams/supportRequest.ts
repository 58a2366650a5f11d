// Stream category `supportrequest`: one stream per support request a tenant sends,
// `supportrequest-<request id>`. Requests are often about personal data (a data dump, a
// deletion, a rectification), so the message is sealed with the request's own data key
// (owner `supportrequest.<request id>`); destroying that key erases it. The operator works the
// request (ops/support.ts): every transition is an event. As a decider:
//
//   none --CreateSupportRequest--> OPEN
//   OPEN --StartSupportRequest--> IN_PROGRESS
//   OPEN | IN_PROGRESS --RecordExport (DATA_DUMP)--> DONE      the archive is ready to download
//   OPEN | IN_PROGRESS --RecordErasure (DELETION)--> DONE      the tenant's data is erased
//   OPEN | IN_PROGRESS --ResolveSupportRequest (RECTIFICATION, OTHER)--> DONE
//   OPEN | IN_PROGRESS --RejectSupportRequest--> REJECTED
//   DONE (exported) --ExpireExport--> DONE                    the archive is deleted
//
// Pure: the request's id, the time, the message (already sealed) and what was done come in the command.
import * as t from 'io-ts';
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import { streamName } from './kernel.js';
import { sealedFor, sealedPurpose } from './dataKey.js';
import { eventCodec, type Decider } from './event.js';

export const category = 'supportrequest';
export const supportRequestStream = (requestId: string): string => streamName(category, requestId);
export const supportRequestKeyOwner = (requestId: string): string => `supportrequest.${requestId}`;
/** The data key the request's export archive is sealed with; destroyed when the archive expires. */
export const supportExportKeyOwner = (requestId: string): string => `supportexport.${requestId}`;

export const SupportRequestType = t.keyof({ DATA_DUMP: null, DELETION: null, OTHER: null, RECTIFICATION: null }, 'SupportRequestType');
export type SupportRequestType = t.TypeOf<typeof SupportRequestType>;

export type SupportRequestStatus = 'OPEN' | 'IN_PROGRESS' | 'DONE' | 'REJECTED';

const Note = t.union([t.string, t.null]);

/** What an export holds, as its manifest counts it. */
export const ExportSummary = t.type({ files: t.number, bytes: t.number, manifestDigest: t.string });
/** What an erasure did, counted. */
export const ErasureSummary = t.type({ resources: t.number, dataKeys: t.number, blobs: t.number, apiKeys: t.number });
export type ErasureSummary = t.TypeOf<typeof ErasureSummary>;

/** The tenant's message, sealed with the request's own data key. */
export const MESSAGE = sealedPurpose('support-request-message', t.string);
export const SealedMessage = sealedFor(MESSAGE);

export const SupportRequestCreated = eventCodec(
  'SupportRequestCreated',
  t.type({ requestId: t.string, tenantId: t.string, type: SupportRequestType, message: SealedMessage, createdAt: t.string }),
);
export const SupportRequestStarted = eventCodec('SupportRequestStarted', t.type({ requestId: t.string, note: Note, startedAt: t.string }));
export const SupportRequestExported = eventCodec(
  'SupportRequestExported',
  t.type({ requestId: t.string, export: ExportSummary, expiresAt: t.string, note: Note, exportedAt: t.string }),
);
export const SupportRequestExportExpired = eventCodec('SupportRequestExportExpired', t.type({ requestId: t.string, expiredAt: t.string }));
export const SupportRequestErased = eventCodec('SupportRequestErased', t.type({ requestId: t.string, erased: ErasureSummary, note: Note, erasedAt: t.string }));
export const SupportRequestResolved = eventCodec('SupportRequestResolved', t.type({ requestId: t.string, note: t.string, resolvedAt: t.string }));
export const SupportRequestRejected = eventCodec('SupportRequestRejected', t.type({ requestId: t.string, note: t.string, rejectedAt: t.string }));

/** Every event a support request stream can hold. */
export const SupportRequestEvent = t.union([
  SupportRequestCreated,
  SupportRequestStarted,
  SupportRequestExported,
  SupportRequestExportExpired,
  SupportRequestErased,
  SupportRequestResolved,
  SupportRequestRejected,
]);
export type SupportRequestEvent = t.TypeOf<typeof SupportRequestEvent>;

export type SupportRequestState =
  | { readonly status: 'none' }
  | {
      readonly status: SupportRequestStatus;
      readonly tenantId: string;
      readonly type: SupportRequestType;
      /** Whether an export archive is downloadable (exported and not expired). */
      readonly exportAvailable: boolean;
    };

type Created = t.TypeOf<typeof SupportRequestCreated>['data'];
type Target = { readonly requestId: string; readonly at: string };

export type Command =
  | { readonly type: 'CreateSupportRequest'; readonly data: Omit<Created, 'createdAt'> & { readonly at: string } }
  | { readonly type: 'StartSupportRequest'; readonly data: Target & { readonly note: string | null } }
  | {
      readonly type: 'RecordExport';
      readonly data: Target & { readonly export: t.TypeOf<typeof ExportSummary>; readonly expiresAt: string; readonly note: string | null };
    }
  | { readonly type: 'ExpireExport'; readonly data: Target }
  | { readonly type: 'RecordErasure'; readonly data: Target & { readonly erased: ErasureSummary; readonly note: string | null } }
  | { readonly type: 'ResolveSupportRequest'; readonly data: Target & { readonly note: string } }
  | { readonly type: 'RejectSupportRequest'; readonly data: Target & { readonly note: string } };

export type DomainError =
  | { readonly _tag: 'SupportRequestExists'; readonly requestId: string }
  | { readonly _tag: 'SupportRequestNotFound'; readonly requestId: string }
  /** The request is not in a state that takes the command (started twice, or already closed). */
  | { readonly _tag: 'SupportRequestConflict'; readonly requestId: string; readonly status: SupportRequestStatus }
  /** The command is not the one for this type of request (an export of a DELETION, a plain resolve of a DATA_DUMP). */
  | { readonly _tag: 'WrongRequestType'; readonly requestId: string; readonly type: SupportRequestType }
  | { readonly _tag: 'NoteRequired'; readonly requestId: string }
  | { readonly _tag: 'NoExport'; readonly requestId: string };

export const initialState: SupportRequestState = { status: 'none' };

export const evolve = (state: SupportRequestState, event: SupportRequestEvent): SupportRequestState => {
  if (event.type === 'SupportRequestCreated') return { status: 'OPEN', tenantId: event.data.tenantId, type: event.data.type, exportAvailable: false };
  if (state.status === 'none') throw new Error(`support request ${event.type} before it was created`);
  switch (event.type) {
    case 'SupportRequestStarted':
      return { ...state, status: 'IN_PROGRESS' };
    case 'SupportRequestExported':
      return { ...state, status: 'DONE', exportAvailable: true };
    case 'SupportRequestExportExpired':
      return { ...state, exportAvailable: false };
    case 'SupportRequestErased':
    case 'SupportRequestResolved':
      return { ...state, status: 'DONE' };
    case 'SupportRequestRejected':
      return { ...state, status: 'REJECTED' };
  }
};

/** What only the operator's dedicated command does for a type; resolve and reject are for the rest. */
const ACTION_OF_TYPE: Readonly<Partial<Record<SupportRequestType, Command['type']>>> = { DATA_DUMP: 'RecordExport', DELETION: 'RecordErasure' };

export const decide = (command: Command, state: SupportRequestState): Either<DomainError, SupportRequestEvent[]> => {
  if (command.type === 'CreateSupportRequest') {
    const { at, ...created } = command.data;
    if (state.status !== 'none') return left({ _tag: 'SupportRequestExists', requestId: created.requestId });
    return right([{ type: 'SupportRequestCreated', data: { ...created, createdAt: at } }]);
  }
  const { requestId, at } = command.data;
  if (state.status === 'none') return left({ _tag: 'SupportRequestNotFound', requestId });
  if (command.type === 'ExpireExport') {
    if (!state.exportAvailable) return left({ _tag: 'NoExport', requestId });
    return right([{ type: 'SupportRequestExportExpired', data: { requestId, expiredAt: at } }]);
  }
  const open = state.status === 'OPEN' || state.status === 'IN_PROGRESS';
  if (!open || (command.type === 'StartSupportRequest' && state.status !== 'OPEN')) return left({ _tag: 'SupportRequestConflict', requestId, status: state.status });
  const dedicated = ACTION_OF_TYPE[state.type];
  if ((command.type === 'RecordExport' || command.type === 'RecordErasure' || command.type === 'ResolveSupportRequest') && command.type !== (dedicated ?? 'ResolveSupportRequest')) {
    return left({ _tag: 'WrongRequestType', requestId, type: state.type });
  }
  switch (command.type) {
    case 'StartSupportRequest':
      return right([{ type: 'SupportRequestStarted', data: { requestId, note: command.data.note, startedAt: at } }]);
    case 'RecordExport':
      return right([{ type: 'SupportRequestExported', data: { requestId, export: command.data.export, expiresAt: command.data.expiresAt, note: command.data.note, exportedAt: at } }]);
    case 'RecordErasure':
      return right([{ type: 'SupportRequestErased', data: { requestId, erased: command.data.erased, note: command.data.note, erasedAt: at } }]);
    case 'ResolveSupportRequest':
    case 'RejectSupportRequest': {
      const note = command.data.note.trim();
      if (note === '') return left({ _tag: 'NoteRequired', requestId });
      return right([
        command.type === 'ResolveSupportRequest'
          ? { type: 'SupportRequestResolved', data: { requestId, note, resolvedAt: at } }
          : { type: 'SupportRequestRejected', data: { requestId, note, rejectedAt: at } },
      ]);
    }
  }
};

export const supportRequest: Decider<Command, SupportRequestState, SupportRequestEvent, DomainError> = {
  category,
  codec: SupportRequestEvent,
  initialState,
  evolve,
  decide,
};
