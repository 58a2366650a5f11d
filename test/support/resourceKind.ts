// The resource API's shared operations, as given / when / then tests any kind's decider must
// pass: created once, then update annotations, update labels, delete and restore under the shared
// rules (404, 412, 409), each recorded as the kind's own event.
import test from 'ava';
import { isRight, left, right } from 'fp-ts/lib/Either.js';
import type { Event } from '../../streams/event.js';
import { etagOf, type AnyKindCommand, type ResourceDecider, type SharedOperation, type StringMap, type Target } from '../../streams/resource.js';
import { givenWhen, stateAfter } from './decider.js';

export const RESOURCE_ID = '5b0c4a52-5f0c-4d3e-9b1a-2f6f7f1f9c10';
export const TENANT = 'tenant-1';
export const AT = '2026-05-01T10:00:00.000Z';
export const LATER = '2026-05-02T10:00:00.000Z';

/** The target of a change on the stream `given` holds: If-Match names the etag of `revision` (the current one by default). */
export const targetOn = (given: readonly unknown[], options: { revision?: number; tenantId?: string } = {}): Target => ({
  tenantId: options.tenantId ?? TENANT,
  id: RESOURCE_ID,
  ifMatch: (tag) => tag === etagOf(RESOURCE_ID, options.revision ?? given.length),
  at: LATER,
});

export interface KindCase<E extends Event, C extends AnyKindCommand> {
  readonly decider: ResourceDecider<E, C>;
  /** The creation, at AT, of resource RESOURCE_ID of TENANT, and the event it records. */
  readonly create: NoInfer<C>;
  readonly created: NoInfer<E>;
  /** The kind's events for the shared operations, at LATER. */
  readonly annotated: (annotations: StringMap) => NoInfer<E>;
  readonly labelled: (labels: StringMap) => NoInfer<E>;
  readonly deleted: NoInfer<E>;
  readonly restored: NoInfer<E>;
}

export const sharedOperationTests = <E extends Event, C extends AnyKindCommand>(kind: KindCase<E, C>): void => {
  const name = kind.decider.category;
  const scenario = givenWhen(kind.decider);
  const envelope = (given: readonly E[]) => kind.decider.envelopeOf(stateAfter(kind.decider)(given));
  const operation = (given: readonly E[], op: SharedOperation['type'], extra: object = {}, options: { revision?: number; tenantId?: string } = {}) =>
    ({ type: op, data: { ...targetOn(given, options), ...extra } }) as C;
  const { created, deleted, restored } = kind;

  test(`${name}: given nothing, when created, then ${created.type}, revision 1 of its tenant; given it, then ResourceExists`, (t) => {
    t.deepEqual(scenario([], kind.create), right([created]));
    t.like(envelope([created]), { id: RESOURCE_ID, tenantId: TENANT, revision: 1, createdAt: AT, deletedAt: null });
    t.deepEqual(scenario([created], kind.create), left({ _tag: 'ResourceExists' }));
  });

  test(`${name}: given it, when its annotations or labels are updated, then the kind's events, the next revision`, (t) => {
    t.deepEqual(scenario([created], operation([created], 'UpdateAnnotations', { annotations: { note: 'x' } })), right([kind.annotated({ note: 'x' })]));
    t.deepEqual(scenario([created], operation([created], 'UpdateLabels', { labels: { team: 'a' } })), right([kind.labelled({ team: 'a' })]));
    t.like(envelope([created, kind.labelled({ team: 'a' })]), { revision: 2, labels: { team: 'a' }, modifiedAt: LATER });
  });

  test(`${name}: given it live, when deleted, then deleted; deleted again or changed, then Conflict deleted; restored, then live`, (t) => {
    const gone = [created, deleted];
    t.deepEqual(scenario([created], operation([created], 'Delete')), right([deleted]));
    t.like(envelope(gone), { revision: 2, deletedAt: LATER });
    t.deepEqual(scenario(gone, operation(gone, 'Delete')), left({ _tag: 'Conflict', reason: 'deleted' }));
    t.deepEqual(scenario(gone, operation(gone, 'UpdateLabels', { labels: {} })), left({ _tag: 'Conflict', reason: 'deleted' }));
    t.deepEqual(scenario(gone, operation(gone, 'Restore')), right([restored]));
    t.like(envelope([...gone, restored]), { revision: 3, deletedAt: null });
    t.deepEqual(scenario([created], operation([created], 'Restore')), left({ _tag: 'Conflict', reason: 'not_deleted' }));
  });

  test(`${name}: the shared events are written byte for byte as the kind's streams hold them, and read back as written`, (t) => {
    const recorded = (decided: ReturnType<typeof scenario>) => JSON.stringify(isRight(decided) ? decided.right : decided.left);
    const gone = [created, deleted];
    t.is(recorded(scenario([created], operation([created], 'UpdateAnnotations', { annotations: { note: 'x' } }))), JSON.stringify([kind.annotated({ note: 'x' })]));
    t.is(recorded(scenario([created], operation([created], 'UpdateLabels', { labels: { team: 'a' } }))), JSON.stringify([kind.labelled({ team: 'a' })]));
    t.is(recorded(scenario([created], operation([created], 'Delete'))), JSON.stringify([deleted]));
    t.is(recorded(scenario(gone, operation(gone, 'Restore'))), JSON.stringify([restored]));
    for (const event of [kind.annotated({ note: 'x' }), kind.labelled({ team: 'a' }), deleted, restored]) {
      const read = kind.decider.codec.decode(JSON.parse(JSON.stringify(event)));
      t.true(isRight(read) && JSON.stringify(read.right) === JSON.stringify(event), event.type);
    }
  });

  test(`${name}: given none, or another tenant's, then NotFound whatever the etag; a stale If-Match, then PreconditionFailed before a state conflict`, (t) => {
    t.deepEqual(scenario([], operation([], 'Delete')), left({ _tag: 'NotFound' }));
    t.deepEqual(scenario([created], operation([created], 'Delete', {}, { tenantId: 'tenant-2' })), left({ _tag: 'NotFound' }));
    t.deepEqual(scenario([created], operation([created], 'UpdateLabels', { labels: {} }, { revision: 2 })), left({ _tag: 'PreconditionFailed' }));
    t.deepEqual(scenario([created, deleted], operation([created, deleted], 'Delete', {}, { revision: 1 })), left({ _tag: 'PreconditionFailed' }));
  });
};
