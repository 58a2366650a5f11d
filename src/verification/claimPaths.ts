// DCQL claims path pointers (OpenID4VP 1.0, section 7): a string selects an object property, a
// non-negative integer an array element, null every element of an array.
import { isRecord } from '../../streams/kernel.js';

/** Where a disclosed claim sits in the credential: keys and array indices. */
export type ClaimPath = readonly (string | number)[];

export type ClaimPathPointer = readonly (string | number | null)[];

/** Whether the pointer selects at least one value in `payload`. */
export const selectsAValue = (payload: unknown, pointer: ClaimPathPointer): boolean => {
  let selected: unknown[] = [payload];
  for (const component of pointer) {
    const next: unknown[] = [];
    for (const value of selected) {
      if (component === null) {
        if (Array.isArray(value)) next.push(...value);
      } else if (typeof component === 'number') {
        if (Array.isArray(value) && component < value.length) next.push(value[component]);
      } else if (isRecord(value) && Object.hasOwn(value, component)) {
        next.push(value[component]);
      }
    }
    if (next.length === 0) return false;
    selected = next;
  }
  return true;
};

const componentMatches = (pointer: string | number | null, actual: string | number): boolean =>
  pointer === null ? typeof actual === 'number' : pointer === actual;

/**
 * Whether a disclosure at `disclosed` was asked for: it lies on the way to a requested claim (an
 * enclosing object or array that had to be disclosed to reach it) or inside one (a requested
 * claim is disclosed whole, nested disclosures included).
 */
export const isRequested = (disclosed: ClaimPath, pointers: readonly ClaimPathPointer[]): boolean =>
  pointers.some((pointer) => {
    const shared = Math.min(pointer.length, disclosed.length);
    for (let i = 0; i < shared; i += 1) {
      if (!componentMatches(pointer[i] ?? null, disclosed[i] ?? '')) return false;
    }
    return true;
  });

/** `address.street` / `nationalities[0]`, or `the credential root`. */
export const describePath = (path: readonly (string | number | null)[]): string => {
  if (path.length === 0) return 'the credential root';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : p === null ? '[*]' : i === 0 ? p : `.${p}`))
    .join('');
};
