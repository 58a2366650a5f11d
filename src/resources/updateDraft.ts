// Updating a draft (the use case, no HTTP): the request's wire schema on each API line, and the
// UpdateDraft merging it into the draft as its stream holds it: the members it names replace the
// draft's, its values and meta sealed again with the draft's data key. The command handler then
// appends it only if If-Match still names the revision (src/resources/update.ts).
import * as t from 'io-ts';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { draft, DraftData, draftKeyOwner, draftStream, type UpdateDraft } from '../../streams/draft.js';
import type { Change } from '../../streams/resource.js';
import { sealFor, type DataKeys } from '../crypto/dataKeys.js';
import { loadStream } from '../eventstore/handle.js';
import type { EventStore, Json } from '../eventstore/port.js';
import { Common, DRAFT_VALUES, kinded, KindedValue, openPrivate, PlainValue } from './draftValues.js';

/** `PATCH /drafts/{id}` on the 0.40 line: the request's body. */
export const Patch040 = t.type({ data: t.partial({ ...Common, values: t.record(t.string, KindedValue) }) });
/** `PATCH /drafts/{id}` on the 0.38 line: plain values. */
export const Patch038 = t.type({ data: t.partial({ ...Common, values: t.record(t.string, PlainValue) }) });
export type PatchDraftBody = t.TypeOf<typeof Patch040> | t.TypeOf<typeof Patch038>;

export interface UpdateDraftDeps {
  readonly store: EventStore;
  readonly dataKeys: Pick<DataKeys, 'find'>;
}

/** The draft `id` of the tenant merged with `patch`; NotFound when no draft of the tenant has the id. */
export const updateDraft = async (
  deps: UpdateDraftDeps,
  address: { readonly tenantId: string; readonly id: string },
  patch: PatchDraftBody,
): Promise<Either<{ readonly _tag: 'NotFound' }, Change<UpdateDraft>>> => {
  // The merge starts from the stream; the update then appends only if If-Match still names it.
  const loaded = await loadStream(deps.store, draft, draftStream(address.id));
  const current = isLeft(loaded) || loaded.right.state.status === 'none' ? undefined : loaded.right.state.resource;
  if (!current || current.tenantId !== address.tenantId) return left({ _tag: 'NotFound' });
  const key = await deps.dataKeys.find(draftKeyOwner(current.id));
  if (!key) throw new Error('draft data key is gone');
  const before = openPrivate(key, current.data['sealed']);
  const { values, meta, ...clear } = patch.data;
  const sealed = sealFor(key, DRAFT_VALUES, { values: kinded(values) ?? before.values, meta: meta ?? before.meta });
  const updated = DraftData.decode({ ...current.data, ...(clear as { [key: string]: Json }), sealed });
  if (isLeft(updated)) throw new Error('a draft update breaks the draft data contract');
  return right({ type: 'UpdateDraft', data: { draft: updated.right } });
};
