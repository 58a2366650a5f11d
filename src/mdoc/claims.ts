// Element values between CBOR and JSON, one mapping both ways (the outcome's claims and the
// offer's input): full-date (tag 1004) as `YYYY-MM-DD`, tdate (tag 0) as an ISO 8601 date-time,
// byte strings (a portrait, say) as base64url, maps as objects, everything else as itself.
import { Tag } from './cbor.js';
import { defineOwn } from '../ownProperty.js';

const FULL_DATE = 1004;
const FULL_DATE_DAYS = 100; // RFC 8943: days since 1970-01-01
const TDATE = 0;

/** An ISO 8601 date-time without fractional seconds, as ISO/IEC 18013-5 writes tdate. */
export const tdateText = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

const daysToFullDate = (days: number): string => new Date(days * 86_400_000).toISOString().slice(0, 10);

export const cborToJson = (value: unknown): unknown => {
  if (value instanceof Date) return tdateText(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64url');
  if (value instanceof Tag) {
    if (value.tag === FULL_DATE_DAYS && typeof value.contents === 'number') return daysToFullDate(value.contents);
    return cborToJson(value.contents);
  }
  if (value instanceof Map) {
    const object: Record<string, unknown> = {};
    for (const [key, item] of value) defineOwn(object, String(key), cborToJson(item));
    return object;
  }
  if (Array.isArray(value)) return value.map(cborToJson);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value === undefined) return null;
  return value;
};

/** A full-date element value (`YYYY-MM-DD`), tag 1004. */
export const fullDate = (text: string): Tag => new Tag(FULL_DATE, text);

/** A tdate element value, tag 0. */
export const tdate = (date: Date): Tag => new Tag(TDATE, tdateText(date));
