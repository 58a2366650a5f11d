// SD-JWT selective disclosure (RFC 9901, formerly draft-ietf-oauth-selective-disclosure-jwt):
// parse each disclosure, then rebuild the disclosed payload from the issuer-signed one by
// replacing digests with the claims they commit to. Strict on purpose: a digest seen twice, a
// disclosure nothing refers to, a disclosed name colliding with a signed one, or a disclosure of
// the wrong kind all reject the whole presentation.
import { createHash } from 'node:crypto';
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { isRecord } from '../../../../streams/kernel.js';
import { defineOwn } from '../../../ownProperty.js';
import { describePath, type ClaimPath } from '../../claimPaths.js';
import { parseJson } from '../../json.js';

/** One disclosure as presented: `[salt, name, value]` for a property, `[salt, value]` for an array element. */
export interface Disclosure {
  readonly encoded: string;
  readonly digest: string;
  /** Absent for an array element. */
  readonly name?: string;
  readonly value: unknown;
}


export interface DisclosedPayload {
  readonly payload: Record<string, unknown>;
  /** Where each disclosure landed in the rebuilt payload, in the order they were met. */
  readonly disclosedPaths: readonly ClaimPath[];
}

/** base64url SHA-256 of the text (ASCII in practice: base64url and compact JWS): the digest of a disclosure, and `sd_hash`. */
export const sha256Base64url = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

const BASE64URL = /^[A-Za-z0-9_-]+$/;

// Positions are counted from 1 in messages, as a reader of errorDetails would count.
export const parseDisclosure = (encoded: string, position: number): Either<string, Disclosure> => {
  const bad = (why: string): Either<string, never> => left(`disclosure ${position} ${why}`);
  if (!BASE64URL.test(encoded)) return bad('is not base64url');
  const array = parseJson(Buffer.from(encoded, 'base64url'));
  if (!Array.isArray(array)) return bad('is not a JSON array');
  const [salt, second, third] = array as unknown[];
  if (typeof salt !== 'string') return bad('has no string salt');
  const digest = sha256Base64url(encoded);
  if (array.length === 2) return right({ encoded, digest, value: second });
  if (array.length !== 3) return bad(`has ${array.length} elements, expected 2 or 3`);
  if (typeof second !== 'string') return bad('has a claim name that is not a string');
  if (second === '_sd' || second === '...') return bad(`discloses the reserved name ${second}`);
  return right({ encoded, digest, name: second, value: third });
};

class Rejection extends Error {}


/**
 * The payload with every presented disclosure put in place and every `_sd`, `_sd_alg` and
 * undisclosed `{"...": digest}` removed. `_sd_alg` must be absent or `sha-256`.
 */
export const applyDisclosures = (signed: Record<string, unknown>, disclosures: readonly Disclosure[]): Either<string, DisclosedPayload> => {
  const alg = signed['_sd_alg'];
  if (alg !== undefined && alg !== 'sha-256') return left(`_sd_alg ${JSON.stringify(alg)} is not supported (only sha-256)`);
  const byDigest = new Map<string, Disclosure>();
  for (const d of disclosures) {
    if (byDigest.has(d.digest)) return left('the same disclosure is presented twice');
    byDigest.set(d.digest, d);
  }
  const seen = new Set<string>();
  const used = new Set<string>();
  const disclosedPaths: ClaimPath[] = [];

  const claimDigest = (digest: unknown, path: ClaimPath): Disclosure | undefined => {
    if (typeof digest !== 'string') throw new Rejection(`a digest at ${describePath(path)} is not a string`);
    // Each digest may appear once in the whole credential: otherwise one disclosure could fill
    // two places, and the issuer signed neither twice.
    if (seen.has(digest)) throw new Rejection(`digest ${digest} appears more than once`);
    seen.add(digest);
    const disclosure = byDigest.get(digest);
    if (disclosure) used.add(digest);
    return disclosure;
  };

  const rebuild = (value: unknown, path: ClaimPath): unknown => {
    if (Array.isArray(value)) return rebuildArray(value, path);
    if (isRecord(value)) return rebuildObject(value, path);
    return value;
  };

  const rebuildArray = (items: readonly unknown[], path: ClaimPath): unknown[] => {
    const out: unknown[] = [];
    for (const item of items) {
      const here = [...path, out.length];
      if (isRecord(item) && Object.keys(item).length === 1 && '...' in item) {
        const disclosure = claimDigest(item['...'], here);
        if (!disclosure) continue;
        if (disclosure.name !== undefined) throw new Rejection(`disclosure for array element ${describePath(here)} is a property disclosure`);
        disclosedPaths.push(here);
        out.push(rebuild(disclosure.value, here));
      } else {
        out.push(rebuild(item, here));
      }
    }
    return out;
  };

  const rebuildObject = (object: Record<string, unknown>, path: ClaimPath): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(object)) {
      if (key === '_sd' || (key === '_sd_alg' && path.length === 0)) continue;
      defineOwn(out, key, rebuild(value, [...path, key]));
    }
    const digests = object['_sd'];
    if (digests === undefined) return out;
    if (!Array.isArray(digests)) throw new Rejection(`_sd at ${describePath(path)} is not an array`);
    for (const digest of digests) {
      const disclosure = claimDigest(digest, path);
      if (!disclosure) continue;
      const { name } = disclosure;
      if (name === undefined) throw new Rejection(`an array element disclosure is referenced from _sd at ${describePath(path)}`);
      const here = [...path, name];
      if (Object.hasOwn(out, name)) throw new Rejection(`disclosed claim ${describePath(here)} already exists in the credential`);
      disclosedPaths.push(here);
      defineOwn(out, name, rebuild(disclosure.value, here));
    }
    return out;
  };

  try {
    const payload = rebuildObject(signed, []);
    const unused = disclosures.findIndex((d) => !used.has(d.digest));
    if (unused >= 0) return left(`disclosure ${unused + 1} is not referenced by the credential`);
    return right({ payload, disclosedPaths });
  } catch (err) {
    if (err instanceof Rejection) return left(err.message);
    throw err;
  }
};
