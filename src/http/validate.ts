// Decoding untrusted input at the edge, with failures reported as a 400 problem listing every
// failure rather than the first.
//
// Location convention: the caller's root (`body`, `query`, `params`, `header`...) followed by
// JavaScript-style accessors: `.name` for properties that are identifiers, `[0]` for array
// indices and `["odd key"]` (a JSON string) for other property names, e.g.
// `body.dcql_query.credentials[0].format`. Union and intersection members add no segment: they
// are alternatives for the same place, not a place of their own.
//
// Unknown extra properties are ignored (io-ts's default) unless the codec says otherwise
// (t.exact/t.strict strip them; they are never reported).
import * as t from 'io-ts';
import { isLeft, left, type Either } from 'fp-ts/lib/Either.js';
import type { FieldError } from './problem.js';
import { HttpError, invalidValues } from './problem.js';

/** Decode `input`, or one entry per io-ts failure, rooted at `location` (for code inside the edge). */
export function validate<A>(codec: t.Decoder<unknown, A>, input: unknown, location: string): Either<FieldError[], A> {
  const result = codec.decode(input);
  return isLeft(result) ? left(describeErrors(result.left, location)) : result;
}

/** Decode `input` or throw a 400 problem with one `errors` entry per io-ts failure (at the edge). */
export function decode<A>(codec: t.Decoder<unknown, A>, input: unknown, location: string): A {
  const result = validate(codec, input, location);
  if (isLeft(result)) throw new HttpError(invalidValues(result.left));
  return result.right;
}

/** io-ts errors as problem entries, rooted at `location`. */
export function describeErrors(errors: t.Errors, location: string): FieldError[] {
  return errors.map((e) => ({
    location: locationOf(e.context, location),
    message: messageOf(e),
    value: e.value,
  }));
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const tagOf = (type: t.Decoder<unknown, unknown>): unknown => (type as { _tag?: unknown })._tag;

// Codecs whose context entries name a member (by index) rather than a property of the input.
const MEMBER_TAGS = new Set<unknown>(['UnionType', 'IntersectionType']);

export function locationOf(context: t.Context, root: string): string {
  let out = root;
  // Entry 0 is the root input (key ""); each later entry's key indexes its predecessor's value.
  for (let i = 1; i < context.length; i++) {
    const parent = context[i - 1]!;
    const entry = context[i]!;
    if (MEMBER_TAGS.has(tagOf(parent.type))) continue;
    if (Array.isArray(parent.actual)) out += `[${entry.key}]`;
    else if (IDENTIFIER.test(entry.key)) out += out === '' ? entry.key : `.${entry.key}`;
    else out += `[${JSON.stringify(entry.key)}]`;
  }
  return out;
}

// Object codecs are named after their whole structure, which is unreadable as "expected ...".
const OBJECT_TAGS = new Set<unknown>(['InterfaceType', 'PartialType', 'ExactType', 'StrictType', 'DictionaryType']);
const ARRAY_TAGS = new Set<unknown>(['ArrayType', 'ReadonlyArrayType']);

function messageOf(error: t.ValidationError): string {
  if (error.message !== undefined) return error.message;
  const last = error.context[error.context.length - 1];
  if (last === undefined) return 'invalid value';
  const tag = tagOf(last.type);
  const expected = OBJECT_TAGS.has(tag) ? 'an object' : ARRAY_TAGS.has(tag) ? 'an array' : last.type.name;
  return error.value === undefined ? `required; expected ${expected}` : `expected ${expected}`;
}
