// A TS 119 602 List of Trusted Entities: a JWS (compact, or the flattened or general JSON
// serialisation) whose payload is `{"LoTE": {...}}` or the bare LoTE object, as in the
// TS 119 602 V1.1.1 JSON schema. The signature is checked with the pinned certificates before
// the payload is read; a LoTE's own `x5c` header is never trusted.
import { X509Certificate as NodeCertificate, type KeyObject } from 'node:crypto';
import type { Either } from 'fp-ts/lib/Either.js';
import { left, right } from 'fp-ts/lib/Either.js';
import { compactVerify, flattenedVerify, generalVerify, type FlattenedJWSInput, type GeneralJWSInput } from 'jose';
import { x509 } from '../crypto/x509.js';
import { isRecord } from '../../streams/kernel.js';
import { parseBoundedJson } from '../http/boundedJson.js';
import type { StatusPeriod, TrustList, TrustService } from './trustList.js';

// Asymmetric algorithms only: an HMAC "signature" would need a shared secret, and `none` is no signature.
const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA'];

type Json = Record<string, unknown>;
const array = (u: unknown): unknown[] => (Array.isArray(u) ? u : []);

const signers = (pinned: readonly Uint8Array[]): { key: KeyObject; certificate: x509.X509Certificate }[] =>
  pinned.flatMap((der) => {
    try {
      return [{ key: new NodeCertificate(der).publicKey, certificate: new x509.X509Certificate(der) }];
    } catch {
      return [];
    }
  });

type Jws = { readonly kind: 'compact'; readonly jws: string } | { readonly kind: 'flattened'; readonly jws: FlattenedJWSInput } | { readonly kind: 'general'; readonly jws: GeneralJWSInput };

const jwsOf = (bytes: Uint8Array): Either<string, Jws> => {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).trim();
  } catch {
    return left('is not UTF-8');
  }
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text)) return right({ kind: 'compact', jws: text });
  const parsed = parseBoundedJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) return left('is neither a compact JWS nor a JSON JWS');
  const value = parsed.value;
  if (typeof value['payload'] !== 'string') return left('is a JSON document but not a signed one (no JWS payload)');
  if (Array.isArray(value['signatures'])) return right({ kind: 'general', jws: value as unknown as GeneralJWSInput });
  if (typeof value['signature'] === 'string') return right({ kind: 'flattened', jws: value as unknown as FlattenedJWSInput });
  return left('is a JSON JWS without a signature');
};

const verifyWith = async (jws: Jws, key: KeyObject): Promise<Uint8Array> => {
  const options = { algorithms: ALGORITHMS };
  switch (jws.kind) {
    case 'compact':
      return (await compactVerify(jws.jws, key, options)).payload;
    case 'flattened':
      return (await flattenedVerify(jws.jws, key, options)).payload;
    case 'general':
      return (await generalVerify(jws.jws, key, options)).payload;
  }
};

/** The payload of a LoTE and which of the pinned certificates signed it. */
export const verifyLoteSignature = async (
  bytes: Uint8Array,
  pinned: readonly Uint8Array[],
): Promise<Either<string, { payload: Uint8Array; signer: x509.X509Certificate }>> => {
  const jws = jwsOf(bytes);
  if (jws._tag === 'Left') return jws;
  const candidates = signers(pinned);
  if (candidates.length === 0) return left('no pinned signing certificate to verify it with');
  for (const { key, certificate } of candidates) {
    try {
      return right({ payload: await verifyWith(jws.right, key), signer: certificate });
    } catch {
      // Another pinned certificate may have signed it.
    }
  }
  return left(`JWS signature does not verify with any of the ${candidates.length} pinned certificates`);
};

const multilingual = (u: unknown): string => {
  const names = array(u).filter(isRecord);
  const chosen = names.find((n) => n['lang'] === 'en') ?? names[0];
  return typeof chosen?.['value'] === 'string' ? chosen['value'] : '';
};

const dateOf = (u: unknown): Date | undefined => {
  const text = isRecord(u) ? u['dateTime'] : u;
  if (typeof text !== 'string') return undefined;
  const parsed = new Date(text);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
};

const certificates = (identity: unknown): x509.X509Certificate[] =>
  array(isRecord(identity) ? identity['X509Certificates'] : undefined).flatMap((c) => {
    const value = isRecord(c) ? c['val'] : undefined;
    if (typeof value !== 'string') return [];
    try {
      return [new x509.X509Certificate(Buffer.from(value.replace(/\s+/g, ''), 'base64'))];
    } catch {
      return [];
    }
  });

const statusPeriod = (information: Json): StatusPeriod => ({
  status: typeof information['ServiceStatus'] === 'string' ? information['ServiceStatus'] : undefined,
  from: dateOf(information['StatusStartingTime']),
});

// An entity names its notifying Member State in a TEInformationURI such as
// http://uri.etsi.org/19602/ListOfTrustedEntities/PIDProvider/FR.
const entityCountry = (information: Json): string | undefined =>
  array(information['TEInformationURI'])
    .map((u) => (isRecord(u) && typeof u['uriValue'] === 'string' ? /\/ListOfTrustedEntities\/[^/]+\/([A-Z]{2})$/.exec(u['uriValue'])?.[1] : undefined))
    .find((c) => c !== undefined);

const services = (entities: unknown): TrustService[] =>
  array(entities).filter(isRecord).flatMap((entity) => {
    const information = isRecord(entity['TrustedEntityInformation']) ? entity['TrustedEntityInformation'] : {};
    const providerName = multilingual(information['TEName']);
    const country = entityCountry(information);
    return array(entity['TrustedEntityServices']).filter(isRecord).flatMap((service): TrustService[] => {
      const serviceInformation = service['ServiceInformation'];
      if (!isRecord(serviceInformation) || typeof serviceInformation['ServiceTypeIdentifier'] !== 'string') return [];
      const history = array(service['ServiceHistory']).filter(isRecord).map(statusPeriod);
      return [{
        providerName,
        serviceName: multilingual(serviceInformation['ServiceName']),
        type: serviceInformation['ServiceTypeIdentifier'],
        statuses: [statusPeriod(serviceInformation), ...history.sort((a, b) => (b.from?.getTime() ?? 0) - (a.from?.getTime() ?? 0))],
        certificates: certificates(serviceInformation['ServiceDigitalIdentity']),
        country,
      }];
    });
  });

/** The list a verified LoTE payload states, or what it lacks to be one. */
export const parseLote = (payload: Uint8Array): Either<string, TrustList> => {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(payload);
  } catch {
    return left('payload is not UTF-8');
  }
  const parsed = parseBoundedJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) return left('payload is not a JSON object');
  const lote = isRecord(parsed.value['LoTE']) ? parsed.value['LoTE'] : parsed.value;
  const scheme = lote['ListAndSchemeInformation'];
  if (!isRecord(scheme)) return left('payload has no ListAndSchemeInformation');
  const sequence = scheme['LoTESequenceNumber'];
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 0) return left('LoTESequenceNumber is missing or not an integer');
  const issuedAt = dateOf(scheme['ListIssueDateTime']);
  if (issuedAt === undefined) return left('ListIssueDateTime is missing or not a date-time');
  return right({
    listType: typeof scheme['LoTEType'] === 'string' ? scheme['LoTEType'] : '',
    territory: typeof scheme['SchemeTerritory'] === 'string' ? scheme['SchemeTerritory'] : undefined,
    operator: multilingual(scheme['SchemeOperatorName']),
    sequenceNumber: sequence,
    issuedAt,
    nextUpdate: dateOf(scheme['NextUpdate']),
    services: services(lote['TrustedEntitiesList']),
    pointers: [],
  });
};
