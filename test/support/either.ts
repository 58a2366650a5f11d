// Unwrapping fp-ts Eithers in tests: a result on the wrong side fails the test with what it held.
import { isLeft, isRight, type Either } from 'fp-ts/lib/Either.js';

const shown = (value: unknown): string => JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

export const rightOf = <E, A>(result: Either<E, A>): A => {
  if (isLeft(result)) throw new Error(`expected success, got ${shown(result.left)}`);
  return result.right;
};

export const leftOf = <E, A>(result: Either<E, A>): E => {
  if (isRight(result)) throw new Error(`expected a failure, got ${shown(result.right)}`);
  return result.left;
};
