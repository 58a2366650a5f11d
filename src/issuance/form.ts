// Form parameters of the wallet's OAuth requests (token endpoint, pushed authorization requests).
import { left, right, type Either } from 'fp-ts/lib/Either.js';
import type { FormFields } from '../http/body.js';

export const FORM_LIMIT = 16 * 1024;

/** A form field given once, or undefined; a repeated one is refused with the reason (RFC 6749 section 3.2). */
export const formField = (fields: FormFields, name: string): Either<string, string | undefined> => {
  const value = fields[name];
  if (value === undefined || value === '') return right(undefined);
  return typeof value === 'string' ? right(value) : left(`${name} must appear once.`);
};
