// The support request decider in given / when / then form: the events a support request stream
// already holds, a command, and the events it decides (or the rejection).
import test from 'ava';
import { left, right } from 'fp-ts/lib/Either.js';
import type { Sealed } from '../streams/dataKey.js';
import { decide, evolve, initialState, type Command, type SupportRequestEvent, type SupportRequestType } from '../streams/supportRequest.js';
import { givenWhen, stateAfter } from './support/decider.js';

const REQUEST = 'request-1';
const AT = '2026-05-01T10:00:00.000Z';
const LATER = '2026-05-02T10:00:00.000Z';
const message: Sealed<string> = { alg: 'A256GCM', iv: 'iv', ciphertext: 'ct', tag: 'tag' };
const summary = { files: 3, bytes: 2048, manifestDigest: 'ab' };
const erased = { resources: 2, dataKeys: 1, blobs: 2, apiKeys: 1 };

const scenario = givenWhen({ decide, evolve, initialState });
const stateOf = stateAfter({ evolve, initialState });

const create = (type: SupportRequestType = 'DELETION'): Command => ({ type: 'CreateSupportRequest', data: { requestId: REQUEST, tenantId: 'tenant-1', type, message, at: AT } });
const created = (type: SupportRequestType = 'DELETION'): SupportRequestEvent => ({ type: 'SupportRequestCreated', data: { requestId: REQUEST, tenantId: 'tenant-1', type, message, createdAt: AT } });
const started: SupportRequestEvent = { type: 'SupportRequestStarted', data: { requestId: REQUEST, note: 'on it', startedAt: LATER } };

const start: Command = { type: 'StartSupportRequest', data: { requestId: REQUEST, note: 'on it', at: LATER } };
const exportIt: Command = { type: 'RecordExport', data: { requestId: REQUEST, export: summary, expiresAt: '2026-05-09T10:00:00.000Z', note: null, at: LATER } };
const erase: Command = { type: 'RecordErasure', data: { requestId: REQUEST, erased, note: 'erased', at: LATER } };
const resolve = (note = 'address corrected'): Command => ({ type: 'ResolveSupportRequest', data: { requestId: REQUEST, note, at: LATER } });
const reject = (note = 'not ours'): Command => ({ type: 'RejectSupportRequest', data: { requestId: REQUEST, note, at: LATER } });
const expire: Command = { type: 'ExpireExport', data: { requestId: REQUEST, at: LATER } };

const exported: SupportRequestEvent = { type: 'SupportRequestExported', data: { requestId: REQUEST, export: summary, expiresAt: '2026-05-09T10:00:00.000Z', note: null, exportedAt: LATER } };

test('given nothing, when a support request is created, then SupportRequestCreated with the message as sealed, OPEN', (t) => {
  t.deepEqual(scenario([], create()), right([created()]));
  t.deepEqual(stateOf([created()]), { status: 'OPEN', tenantId: 'tenant-1', type: 'DELETION', exportAvailable: false });
});

test('given a support request, when created again, then SupportRequestExists', (t) => {
  t.deepEqual(scenario([created()], create()), left({ _tag: 'SupportRequestExists', requestId: REQUEST }));
});

test('given nothing, when the operator works a request, then SupportRequestNotFound', (t) => {
  for (const command of [start, exportIt, erase, resolve(), reject(), expire]) t.deepEqual(scenario([], command), left({ _tag: 'SupportRequestNotFound', requestId: REQUEST }));
});

test('given an OPEN request, when started, then SupportRequestStarted and IN_PROGRESS; started again is a conflict', (t) => {
  t.deepEqual(scenario([created()], start), right([started]));
  t.is(stateOf([created(), started]).status, 'IN_PROGRESS');
  t.deepEqual(scenario([created(), started], start), left({ _tag: 'SupportRequestConflict', requestId: REQUEST, status: 'IN_PROGRESS' }));
});

test('given a DATA_DUMP, OPEN or IN_PROGRESS, when exported, then SupportRequestExported, DONE with its archive available', (t) => {
  for (const given of [[created('DATA_DUMP')], [created('DATA_DUMP'), started]]) t.deepEqual(scenario(given, exportIt), right([exported]));
  t.like(stateOf([created('DATA_DUMP'), exported]), { status: 'DONE', exportAvailable: true });
});

test('given an exported DATA_DUMP, when its archive expires, then SupportRequestExportExpired; expiring again is NoExport', (t) => {
  const expired: SupportRequestEvent = { type: 'SupportRequestExportExpired', data: { requestId: REQUEST, expiredAt: LATER } };
  t.deepEqual(scenario([created('DATA_DUMP'), exported], expire), right([expired]));
  t.like(stateOf([created('DATA_DUMP'), exported, expired]), { status: 'DONE', exportAvailable: false });
  t.deepEqual(scenario([created('DATA_DUMP'), exported, expired], expire), left({ _tag: 'NoExport', requestId: REQUEST }));
  t.deepEqual(scenario([created('DATA_DUMP')], expire), left({ _tag: 'NoExport', requestId: REQUEST }));
});

test('given a DELETION, when erased, then SupportRequestErased with what was erased, DONE', (t) => {
  t.deepEqual(scenario([created('DELETION'), started], erase), right([{ type: 'SupportRequestErased', data: { requestId: REQUEST, erased, note: 'erased', erasedAt: LATER } }]));
  t.is(stateOf([created('DELETION'), { type: 'SupportRequestErased', data: { requestId: REQUEST, erased, note: null, erasedAt: LATER } }]).status, 'DONE');
});

test('each type takes only its own action: export a DATA_DUMP, erase a DELETION, resolve a RECTIFICATION or OTHER (WrongRequestType)', (t) => {
  const wrong = (type: SupportRequestType) => left({ _tag: 'WrongRequestType', requestId: REQUEST, type });
  t.deepEqual(scenario([created('DELETION')], exportIt), wrong('DELETION'));
  t.deepEqual(scenario([created('DATA_DUMP')], erase), wrong('DATA_DUMP'));
  t.deepEqual(scenario([created('DATA_DUMP')], resolve()), wrong('DATA_DUMP'));
  t.deepEqual(scenario([created('DELETION')], resolve()), wrong('DELETION'));
  for (const type of ['RECTIFICATION', 'OTHER'] as const) {
    t.deepEqual(scenario([created(type)], exportIt), wrong(type));
    t.deepEqual(scenario([created(type)], erase), wrong(type));
    t.deepEqual(scenario([created(type), started], resolve()), right([{ type: 'SupportRequestResolved', data: { requestId: REQUEST, note: 'address corrected', resolvedAt: LATER } }]));
  }
});

test('given an open request of any type, when rejected with a note, then SupportRequestRejected, REJECTED', (t) => {
  for (const type of ['DATA_DUMP', 'DELETION', 'RECTIFICATION', 'OTHER'] as const) {
    const rejected: SupportRequestEvent = { type: 'SupportRequestRejected', data: { requestId: REQUEST, note: 'not ours', rejectedAt: LATER } };
    t.deepEqual(scenario([created(type)], reject()), right([rejected]));
    t.is(stateOf([created(type), rejected]).status, 'REJECTED');
  }
});

test('resolving or rejecting needs a note that says something (NoteRequired)', (t) => {
  t.deepEqual(scenario([created('OTHER')], resolve('   ')), left({ _tag: 'NoteRequired', requestId: REQUEST }));
  t.deepEqual(scenario([created('OTHER')], reject('')), left({ _tag: 'NoteRequired', requestId: REQUEST }));
});

test('given a closed request (DONE or REJECTED), every further action is a conflict', (t) => {
  const done: SupportRequestEvent = { type: 'SupportRequestResolved', data: { requestId: REQUEST, note: 'done', resolvedAt: LATER } };
  const rejected: SupportRequestEvent = { type: 'SupportRequestRejected', data: { requestId: REQUEST, note: 'no', rejectedAt: LATER } };
  for (const [given, status] of [[[created('OTHER'), done], 'DONE'], [[created('OTHER'), rejected], 'REJECTED']] as const) {
    for (const command of [start, resolve(), reject()]) t.deepEqual(scenario(given, command), left({ _tag: 'SupportRequestConflict', requestId: REQUEST, status }));
  }
  t.deepEqual(scenario([created('DATA_DUMP'), exported], exportIt), left({ _tag: 'SupportRequestConflict', requestId: REQUEST, status: 'DONE' }));
});
