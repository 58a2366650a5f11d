// Checks the claims of an offer against its credential configuration before anything is
// recorded: every leaf must be a configured claim (or an object on the way to one), every
// mandatory claim present, every value of its configured type, and none of the claims the
// connector sets at signing. One error entry per failure, located like the rest of the API.
import { isRecord } from '../../streams/kernel.js';
import type { Json } from '../eventstore/port.js';
import type { FieldError } from '../http/problem.js';
import { RESERVED_CLAIMS, type ClaimConfiguration, type CredentialConfiguration, type ValueType } from './configurations.js';

type JsonObject = { readonly [key: string]: Json | undefined };

const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/;

const hasType = (value: unknown, type: ValueType | undefined): boolean => {
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
      return typeof value === 'string' && FULL_DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
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
    node = node[step];
  }
  return node;
};

export const validateClaims = (configuration: CredentialConfiguration, claims: unknown, root: string): FieldError[] => {
  if (!isRecord(claims)) return [{ location: root, message: 'expected an object of claim names to values', value: claims }];
  const errors: FieldError[] = [];
  const byPath = new Map<string, ClaimConfiguration>(configuration.claims.map((c) => [JSON.stringify(c.path), c]));
  const isContainer = (path: readonly string[]): boolean =>
    configuration.claims.some((c) => c.path.length > path.length && path.every((s, i) => c.path[i] === s));

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
          errors.push({ location, message: `expected ${configured.value_type === 'date' ? 'a date (YYYY-MM-DD)' : configured.value_type ?? 'a value other than null'}`, value });
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
  for (const c of configuration.claims) {
    if (c.mandatory && valueAt(json, c.path) === undefined) {
      errors.push({ location: locate(root, c.path), message: 'required; a mandatory claim of this credential configuration', value: undefined });
    }
  }
  return errors;
};
