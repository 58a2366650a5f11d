// Checks the claims of an offer against its credential configuration before anything is
// recorded: every leaf must be a configured claim (or an object on the way to one), every
// mandatory claim present, every value of its configured type, and none of the claims the
// connector sets at signing. One error entry per failure, located like the rest of the API.
import { isRecord } from '../../streams/kernel.js';
import type { Json } from '../eventstore/port.js';
import type { FieldError } from '../http/problem.js';
import { ownValue } from '../ownProperty.js';
import { RESERVED_CLAIMS, type CredentialConfiguration, type MdocValueType, type ValueType } from './configurations.js';

type JsonObject = { readonly [key: string]: Json | undefined };

const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const isFullDate = (value: unknown): boolean => typeof value === 'string' && FULL_DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/** ISO/IEC 18013-5 Table 5: each privilege has a vehicle category and may have full-date issue and expiry dates. */
const isDrivingPrivileges = (value: unknown): boolean =>
  Array.isArray(value) &&
  value.every(
    (p) =>
      isRecord(p) &&
      typeof p['vehicle_category_code'] === 'string' &&
      (p['issue_date'] === undefined || isFullDate(p['issue_date'])) &&
      (p['expiry_date'] === undefined || isFullDate(p['expiry_date'])) &&
      (p['codes'] === undefined || (Array.isArray(p['codes']) && p['codes'].every((c) => isRecord(c) && typeof c['code'] === 'string'))),
  );

const EXPECTED: Partial<Record<ValueType | MdocValueType, string>> = {
  date: 'a date (YYYY-MM-DD)',
  'full-date': 'a full-date (YYYY-MM-DD)',
  tdate: 'an ISO 8601 date-time (YYYY-MM-DDThh:mm:ssZ)',
  bytes: 'base64url bytes',
  driving_privileges: 'driving privileges: an array of {vehicle_category_code, issue_date?, expiry_date? (YYYY-MM-DD), codes?}',
};

const hasType = (value: unknown, type: ValueType | MdocValueType | undefined): boolean => {
  switch (type) {
    case undefined:
      return value !== null;
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
    case 'full-date':
      return isFullDate(value);
    case 'tdate':
      return typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
    case 'bytes':
      return typeof value === 'string' && BASE64URL.test(value);
    case 'driving_privileges':
      return isDrivingPrivileges(value);
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
  }
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `body.claims.address.locality`, in the notation of src/http/validate.ts. */
const locate = (root: string, path: readonly string[]): string =>
  path.reduce((out, step) => (IDENTIFIER.test(step) ? `${out}.${step}` : `${out}[${JSON.stringify(step)}]`), root);

/** The value at `path`, or undefined when a step is missing or not an object. */
export const valueAt = (claims: JsonObject, path: readonly string[]): Json | undefined => {
  let node: Json | undefined = claims;
  for (const step of path) {
    if (!isRecord(node)) return undefined;
    node = ownValue(node, step);
  }
  return node;
};

export const validateClaims = (configuration: CredentialConfiguration, claims: unknown, root: string): FieldError[] => {
  if (!isRecord(claims)) return [{ location: root, message: 'expected an object of claim names to values', value: claims }];
  const errors: FieldError[] = [];
  const paths: readonly { readonly path: readonly string[]; readonly mandatory: boolean; readonly value_type?: ValueType | MdocValueType }[] = configuration.claims;
  const byPath = new Map(paths.map((c) => [JSON.stringify(c.path), c]));
  const isContainer = (path: readonly string[]): boolean => paths.some((c) => c.path.length > path.length && path.every((s, i) => c.path[i] === s));

  const walk = (node: Readonly<Record<string, unknown>>, path: readonly string[]): void => {
    for (const [name, value] of Object.entries(node)) {
      if (value === undefined) continue;
      const here = [...path, name];
      const location = locate(root, here);
      if (path.length === 0 && RESERVED_CLAIMS.includes(name)) {
        errors.push({ location, message: `"${name}" is set by the connector at signing and must not be supplied`, value });
        continue;
      }
      const configured = byPath.get(JSON.stringify(here));
      if (configured) {
        if (!hasType(value, configured.value_type)) {
          const type = configured.value_type;
          errors.push({ location, message: `expected ${type === undefined ? 'a value other than null' : EXPECTED[type] ?? type}`, value });
        }
      } else if (isContainer(here)) {
        if (isRecord(value)) walk(value, here);
        else errors.push({ location, message: 'expected an object', value });
      } else {
        errors.push({ location, message: `unknown claim for credential configuration "${configuration.id}"`, value });
      }
    }
  };
  walk(claims, []);

  // The claims arrived as JSON: an object of them holds JSON values.
  const json = claims as JsonObject;
  for (const c of paths) {
    if (c.mandatory && valueAt(json, c.path) === undefined) {
      errors.push({ location: locate(root, c.path), message: 'required; a mandatory claim of this credential configuration', value: undefined });
    }
  }
  return errors;
};
