// Hostile request bodies for the robustness suite: generated from a seed so that a failing run
// can be repeated exactly.
import { JSON_LIMITS } from '../../src/http/boundedJson.js';
import { createAgent } from '../support/didcommAgent.js';
import { pidQuery } from '../support/wallet/connector.js';
import { PID_CLAIMS } from '../support/wallet/issuanceChecks.js';

/** A small deterministic generator (mulberry32): the same seed gives the same run. */
export class Random {
  constructor(private seed: number) {}
  next(): number {
    this.seed = (this.seed + 0x6d2b79f5) | 0;
    let x = Math.imul(this.seed ^ (this.seed >>> 15), 1 | this.seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

export interface Body {
  readonly name: string;
  readonly contentType: string | undefined;
  readonly bytes: Buffer;
}

const nested = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

const text = (name: string, body: string, contentType = 'application/json'): Body => ({ name, contentType, bytes: Buffer.from(body) });

const deepObject = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

/** Values that break assumptions wherever they land: wrong types, extremes, pollution keys. */
const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -0,
  2 ** 53 + 1,
  '',
  ' ',
  'x'.repeat(20_000),
  '\u0000',
  '\ud800',
  '../../etc/passwd',
  "' OR 1=1 --",
  '$.x',
  '1970-01-01T00:00:00Z',
  '99999-12-31T23:59:59Z',
  [],
  [null],
  {},
  { __proto__: null, constructor: { prototype: { polluted: true } } },
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  Array.from({ length: 200 }, (_, i) => i),
];

/** Structures within the size limit but beyond what storage and recursive code can take. */
const HOSTILE_STRUCTURES: readonly unknown[] = [
  deepObject(1000),
  deepObject(JSON_LIMITS.maxDepth),
  { type: 'object', properties: deepObject(200) },
  Array.from({ length: JSON_LIMITS.maxMembers + 1 }, () => 0),
];

/** Bodies that no route should accept, whatever it expects. */
const FIXED: readonly Body[] = [
  text('empty', ''),
  text('deep array', nested(JSON_LIMITS.maxDepth + 1)),
  text('very deep array', nested(5000)),
  text('deep object', `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`),
  text('wide array', `[${Array.from({ length: JSON_LIMITS.maxMembers + 1 }, () => '0').join(',')}]`),
  text('wide object', `{${Array.from({ length: 3000 }, (_, i) => `"k${i.toString(36)}":0`).join(',')}}`),
  text('huge string', JSON.stringify({ data: 'x'.repeat(60_000) })),
  text('duplicate keys', '{"data":{"a":1},"data":{"a":2},"labels":{"k":"v"},"labels":{"k":1}}'),
  text('__proto__ member', '{"__proto__":{"isAdmin":true},"labels":{"__proto__":"x"}}'),
  text('constructor.prototype', '{"constructor":{"prototype":{"isAdmin":true}}}'),
  text('truncated JSON', '{"data":{"a":'),
  text('trailing garbage', '{} {}'),
  text('scalar', '7'),
  text('string', '"hello"'),
  text('null', 'null'),
  text('array', '[]'),
  { name: 'invalid UTF-8', contentType: 'application/json', bytes: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
  { name: 'BOM', contentType: 'application/json', bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]) },
  text('form with repeated fields', 'a=1&a=2&grant_type=x&grant_type=y', 'application/x-www-form-urlencoded'),
  text('form with a deep JSON field', `response=${encodeURIComponent(nested(3000))}&state=${'s'.repeat(43)}`, 'application/x-www-form-urlencoded'),
  text('form with a huge field', `proof=${'x'.repeat(60_000)}`, 'application/x-www-form-urlencoded'),
  text('plain text', 'hello', 'text/plain'),
  text('JSON with a charset other than UTF-8', '{}', 'application/json; charset=latin1'),
  { name: 'no content type', contentType: undefined, bytes: Buffer.from('{}') },
];

/** A presentation request for the Digital Credentials API, whose sessions the DC API route answers. */
export const DC_API_PRESENTATION = { flow_type: 'dc_api', expected_origins: ['https://shop.example'], dcql_query: pidQuery() };

/** Bodies a route accepts, to mutate: the suite reaches the code behind the first validation. */
export const SAMPLES: Readonly<Record<string, unknown>> = {
  'POST /oidc4vp/:state/dc-api-response': { origin: 'https://shop.example', protocol: 'openid4vp-v1-signed', data: { response: 'eyJhbGciOiJFQ0RILUVTIn0..aXY.Y2lwaGVy.dGFn' } },
  'POST /oidc4vp': { dcql_query: pidQuery(), transaction_data: [{ type: 'payment', credential_ids: ['pid'], amount: '1' }] },
  'POST /offers': { credential_configuration_id: 'pid', claims: PID_CLAIMS, tx_code: { input_mode: 'numeric', length: 4 } },
  'POST /api-keys': { annotations: { a: 'b' }, labels: { l: 'v' } },
  'POST /drafts': { data: { type: ['T'], meta: { subject: 's' }, values: { n: { kind: 'STRING', value: 'v' } }, schema: { schema: { type: 'object' } } } },
  'POST /schemas': { data: { slug: 'fuzz', version: '1', schema: { type: 'object', properties: { n: { type: 'string' } } } } },
  'POST /support-requests': { message: 'm', type: 'OTHER' },
  'POST /didcomm-messages': { data: { to: createAgent('https://localhost:9/didcomm').did, key_id: '00000000-0000-4000-8000-000000000000', credentials: [], files: [] } },
  search: { filter: [{ labels: [{ operator: 'EQUAL', key: 'k', value: 'v' }] }], sort: [{ field: 'DATA_ID', order: 'ASC' }] },
  'PUT annotations': { annotations: { a: 'b' } },
  'PUT labels': { labels: { l: 'v' } },
  export: { issuer: 'did:web:example.com' },
};

/** Every path to a member of `value`: the places a mutation may replace. */
const pathsOf = (value: unknown, at: readonly (string | number)[] = []): (readonly (string | number)[])[] => {
  if (typeof value !== 'object' || value === null) return [at];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [at, ...entries.flatMap(([key, v]) => pathsOf(v, [...at, key]))];
};

const replaced = (value: unknown, path: readonly (string | number)[], by: unknown): unknown => {
  if (path.length === 0) return by;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head!] = replaced(copy[head!], rest, by);
  return copy;
};

/** `sample` with one member (or the whole) replaced by a hostile value. */
export const mutated = (random: Random, sample: unknown): Body => {
  const path = random.pick(pathsOf(sample));
  const value = random.next() < 0.5 ? random.pick(HOSTILE_STRUCTURES) : random.pick(HOSTILE_VALUES);
  return text(`sample with ${path.join('.') || 'the whole'} replaced`, JSON.stringify(replaced(sample, path, value)));
};

export const hostileBody = (random: Random, sample: unknown): Body =>
  sample !== undefined && random.next() < 0.7 ? mutated(random, sample) : random.pick(FIXED);
