// Form parameters of the wallet's OAuth requests (token endpoint, pushed authorization requests).
import type { FormFields } from '../http/body.js';
import { invalidRequest } from '../http/oauthError.js';

export const FORM_LIMIT = 16 * 1024;

/** A form field given once, or undefined; repeated fields are refused (RFC 6749 section 3.2). */
export const single = (fields: FormFields, name: string): string | undefined => {
  const value = fields[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must appear once.`);
  return value;
};
