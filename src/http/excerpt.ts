// What an error response may say about the input that caused it: enough to find the mistake,
// never the input itself. Echoing offending values whole let a small request produce an answer
// many times its size, and a deep value overflow the serialiser; echoing a URL's user-info
// (`user:password@`) would hand a credential back (to logs, consoles, proxies).
import { withoutUserInfo } from './redact.js';

/** The most characters an echoed value takes in an error response. */
export const EXCERPT_CHARS = 120;
/** The most characters of a location, message or detail (which may quote the input too). */
export const TEXT_CHARS = 400;
/** The most `errors` entries one problem lists; its `detail` still counts them all. */
export const MAX_FIELD_ERRORS = 20;

const ELLIPSIS = '…';

/** `text` cut to `max` characters, marked when cut. */
export const clip = (text: string, max = TEXT_CHARS): string => (text.length <= max ? text : `${text.slice(0, max)}${ELLIPSIS}`);

/**
 * A bounded stand-in for an offending value: scalars as they are (strings clipped); an object or
 * array whose JSON fits in EXCERPT_CHARS as it is, otherwise the start of its JSON as a string;
 * any URL user-info in it replaced (then the JSON as a string). Never serialises more than it
 * keeps, so any depth or width costs the same.
 */
export function excerpt(value: unknown): unknown {
  if (typeof value === 'string') return clip(withoutUserInfo(value), EXCERPT_CHARS);
  if (typeof value !== 'object' || value === null) return typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  const out = { text: '' };
  const complete = writeJson(value, out);
  const redacted = withoutUserInfo(out.text);
  if (complete && redacted === out.text) return value;
  return complete ? redacted : `${redacted.slice(0, EXCERPT_CHARS)}${ELLIPSIS}`;
}

/** Appends `value`'s JSON to `out.text` until it passes EXCERPT_CHARS; true when it all fitted. */
function writeJson(value: unknown, out: { text: string }): boolean {
  const emit = (piece: string): boolean => {
    out.text += piece;
    return out.text.length <= EXCERPT_CHARS;
  };
  if (typeof value !== 'object' || value === null) return emit(JSON.stringify(value) ?? 'null');
  const isArray = Array.isArray(value);
  if (!emit(isArray ? '[' : '{')) return false;
  let first = true;
  // for...in stops early: Object.entries would copy every member of a wide object first.
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (!first && !emit(',')) return false;
    first = false;
    if (!isArray && !emit(`${JSON.stringify(key)}:`)) return false;
    if (!writeJson((value as Record<string, unknown>)[key], out)) return false;
  }
  return emit(isArray ? ']' : '}');
}
