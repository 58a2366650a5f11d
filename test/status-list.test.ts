// The Status List byte array (draft-ietf-oauth-status-list, section 4): the draft's own examples
// and test vectors decode to the statuses its text lists, encoding those statuses gives them back,
// and malformed or oversized lists are refused with a reason.
import test from 'ava';
import { deflateSync } from 'node:zlib';
import { buildStatusList, decodeLst, encodeLst, sizeOf, statusAt, type Bits, type StatusList } from '../src/statusList/statusList.js';
import { leftOf, rightOf } from './support/either.js';

const MAX = 1 << 20;

const statusesOf = (list: StatusList): number[] => Array.from({ length: sizeOf(list) }, (_, i) => statusAt(list, i)!);

test('the 1-bit example (section 4.1) decodes to the statuses the draft lists, bytes 0xB9 0xA3', (t) => {
  const list = rightOf(decodeLst('eNrbuRgAAhcBXQ', 1, MAX));
  t.deepEqual([...list.bytes], [0xb9, 0xa3]);
  t.deepEqual(statusesOf(list), [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]);
});

test('the 2-bit example (section 4.1) decodes to the statuses the draft lists, bytes 0xC9 0x44 0xF9', (t) => {
  const list = rightOf(decodeLst('eNo76fITAAPfAgc', 2, MAX));
  t.deepEqual([...list.bytes], [0xc9, 0x44, 0xf9]);
  t.deepEqual(statusesOf(list), [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3]);
});

test('encoding the examples\' statuses gives the draft\'s lst back, byte for byte', (t) => {
  const one = buildStatusList(1, 16, [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1].map((s, i) => [i, s] as const));
  t.is(encodeLst(one), 'eNrbuRgAAhcBXQ');
  const two = buildStatusList(2, 12, [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3].map((s, i) => [i, s] as const));
  t.is(encodeLst(two), 'eNo76fITAAPfAgc');
});

// Appendix "Test vectors for Status List encoding", 2-bit list of 2^20 entries.
const LONG_2_BIT =
  'eNrt2zENACEQAEEuoaBABP5VIO01fCjIHTMStt9ovGVIAAAAAABAbiEBAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEB5WwIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAID0ugQAAAAAAAAAAAAAAAAAQG12SgAAAAAAAAAAAAAAAAAAAAAAAAAAAOCSIQEAAAAAAAAAAAAAAAAAAAAAAAD8ExIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAwJEuAQAAAAAAAAAAAAAAAAAAAAAAAMB9SwIAAAAAAAAAAAAAAAAAAACoYUoAAAAAAAAAAAAAAEBqH81gAQw';

test('the draft\'s 2-bit test vector of 2^20 entries decodes to its eleven set statuses and nothing else', (t) => {
  const list = rightOf(decodeLst(LONG_2_BIT, 2, MAX));
  t.is(sizeOf(list), 1 << 20);
  const expected = new Map([
    [0, 1], [1993, 2], [25460, 1], [159495, 3], [495669, 1], [554353, 1], [645645, 2], [723232, 1], [854545, 1], [934534, 2], [1000345, 3],
  ]);
  const set = new Map<number, number>();
  for (let i = 0; i < sizeOf(list); i++) {
    const status = statusAt(list, i)!;
    if (status !== 0) set.set(i, status);
  }
  t.deepEqual(set, expected);
  t.deepEqual([...rightOf(decodeLst(encodeLst(buildStatusList(2, 1 << 20, expected)), 2, MAX)).bytes], [...list.bytes]);
});

test('every bit size round-trips, the last index of the list included', (t) => {
  for (const bits of [1, 2, 4, 8] as Bits[]) {
    const size = 64;
    const top = (1 << bits) - 1;
    const statuses = Array.from({ length: size }, (_, i) => (i * 7 + 3) % (top + 1));
    const list = rightOf(decodeLst(encodeLst(buildStatusList(bits, size, statuses.map((s, i) => [i, s] as const))), bits, MAX));
    t.deepEqual(statusesOf(list), statuses, `bits ${bits}`);
    t.is(statusAt(list, size), undefined, `bits ${bits}: one past the end`);
  }
});

test('an index outside the list, negative or fractional, has no status', (t) => {
  const list = rightOf(decodeLst('eNrbuRgAAhcBXQ', 1, MAX));
  t.is(statusAt(list, 16), undefined);
  t.is(statusAt(list, -1), undefined);
  t.is(statusAt(list, 1.5), undefined);
});

test('malformed lists are refused with a reason', (t) => {
  t.is(leftOf(decodeLst('eNrbuRgAAhcBXQ', 3, MAX)), 'status_list.bits is not 1, 2, 4 or 8');
  t.is(leftOf(decodeLst('eNrbuRgAAhcBXQ==', 1, MAX)), 'status_list.lst is not base64url');
  t.is(leftOf(decodeLst(42, 1, MAX)), 'status_list.lst is not base64url');
  t.is(leftOf(decodeLst(Buffer.from('not zlib').toString('base64url'), 1, MAX)), 'status_list.lst is not DEFLATE data in the ZLIB format');
  // Raw DEFLATE without the ZLIB header and checksum is not the draft's format.
  const raw = deflateSync(Buffer.from([0xb9, 0xa3])).subarray(2, -4).toString('base64url');
  t.is(leftOf(decodeLst(raw, 1, MAX)), 'status_list.lst is not DEFLATE data in the ZLIB format');
  t.is(leftOf(decodeLst(deflateSync(Buffer.alloc(0)).toString('base64url'), 1, MAX)), 'status_list.lst holds no statuses');
});

test('a list that inflates past the limit is refused without being held', (t) => {
  const bomb = deflateSync(Buffer.alloc(4 * MAX)).toString('base64url');
  t.true(bomb.length < 10_000);
  t.is(leftOf(decodeLst(bomb, 1, MAX)), `status_list.lst decompresses to more than ${MAX} bytes`);
});

test('building a list refuses what would not be a list', (t) => {
  t.throws(() => buildStatusList(2, 6, []), { message: /whole bytes/ });
  t.throws(() => buildStatusList(2, 8, [[8, 1]]), { message: /outside/ });
  t.throws(() => buildStatusList(1, 8, [[0, 2]]), { message: /does not fit/ });
});
