// Reading an imported credential: a W3C Verifiable Credential in JSON (data model 1.1 or 2.0).
// Only its description is kept in events (types, validity, proof type, related resources); the
// claims stay in the blob and are read from there by `GET /credentials/{id}/values`.
import * as t from 'io-ts';
import { left, mapLeft, type Either } from 'fp-ts/lib/Either.js';
import type { Json } from '../eventstore/port.js';
import { parseBoundedJson } from '../http/boundedJson.js';
import { IsoDateTime } from '../http/codecs.js';
import type { FieldError } from '../http/problem.js';
import { validate } from '../http/validate.js';

const V1_CONTEXT = 'https://www.w3.org/2018/credentials/v1';
const V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';

const Context = t.refinement(t.array(t.unknown), (c) => c[0] === V1_CONTEXT || c[0] === V2_CONTEXT, `an array starting with ${V1_CONTEXT} or ${V2_CONTEXT}`);
const Types = t.refinement(t.union([t.string, t.array(t.string)]), (ty) => (Array.isArray(ty) ? ty : [ty]).includes('VerifiableCredential'), 'types including VerifiableCredential');
const Proof = t.intersection([t.type({ type: t.string }), t.partial({ id: t.string })]);
const Subject = t.UnknownRecord;

const VerifiableCredential = t.intersection([
  t.type({ '@context': Context, type: Types, credentialSubject: t.union([Subject, t.array(Subject)]) }),
  t.partial({
    issuanceDate: IsoDateTime,
    expirationDate: IsoDateTime,
    validFrom: IsoDateTime,
    validUntil: IsoDateTime,
    proof: t.union([Proof, t.array(Proof)]),
    relatedResource: t.array(t.partial({ id: t.string, digestMultibase: t.string })),
  }),
]);
export type VerifiableCredential = t.TypeOf<typeof VerifiableCredential>;

/** Why a blob is not a credential: it is not JSON (`reason`), or not a credential (`errors`, located in `blob`). */
export type NotACredential =
  | { readonly _tag: 'NotJson'; readonly reason: string }
  | { readonly _tag: 'InvalidCredential'; readonly errors: readonly FieldError[] };

/** The blob parsed as a credential. */
export const readCredential = (bytes: Buffer): Either<NotACredential, VerifiableCredential> => {
  const parsed = parseBoundedJson(bytes.toString('utf8'));
  if (!parsed.ok) return left({ _tag: 'NotJson', reason: parsed.reason });
  return mapLeft((errors: FieldError[]): NotACredential => ({ _tag: 'InvalidCredential', errors }))(validate(VerifiableCredential, parsed.value, 'blob'));
};

export const flavorOf = (vc: VerifiableCredential): string => (vc['@context'][0] === V1_CONTEXT ? 'VC1_1' : 'VC2_0');

export const typesOf = (vc: VerifiableCredential): string[] => (Array.isArray(vc.type) ? [...vc.type] : [vc.type]);

export const firstProof = (vc: VerifiableCredential): { id: string | null; type: string } | null => {
  const proof = Array.isArray(vc.proof) ? vc.proof[0] : vc.proof;
  return proof ? { id: proof.id ?? null, type: proof.type } : null;
};

/** Claim values in the draft `values` shape: claim name -> `{kind, value}`. */
export const claimValues = (vc: VerifiableCredential): { [claim: string]: Json } => {
  const subject = Array.isArray(vc.credentialSubject) ? (vc.credentialSubject[0] ?? {}) : vc.credentialSubject;
  // fromEntries defines own properties: a claim named __proto__ stays a claim.
  return Object.fromEntries(
    Object.entries(subject)
      .filter(([name]) => name !== 'id')
      .map(([name, value]) => [name, claimValue(value as Json)]),
  );
};

/** A claim value in the draft `values` shape. */
export const claimValue = (value: Json): { kind: string; value: Json } => ({ kind: kindOf(value), value });

const kindOf = (value: unknown): string => {
  if (typeof value === 'string') return 'STRING';
  if (typeof value === 'number') return 'NUMBER';
  if (typeof value === 'boolean') return 'BOOLEAN';
  if (Array.isArray(value)) return 'ARRAY';
  return value === null ? 'NULL' : 'OBJECT';
};
