// The credential of an `mso_mdoc` configuration (OpenID4VCI 1.0, Appendix A.2): an IssuerSigned
// (src/mdoc/issuerSigned.ts) over the offer's `{namespace: {element: value}}` claims, each value
// turned into its CBOR type by the configured `value_type`, for the key of the wallet's proof
// (the MSO's deviceKeyInfo), signed by the Issuer Signing Certificate's key with its chain in
// `x5chain`. The credential is the IssuerSigned's CBOR, base64url.
import type { Json } from '../../../eventstore/port.js';
import { fullDate, tdate } from '../../../mdoc/claims.js';
import { buildIssuerSigned } from '../../../mdoc/issuerSigned.js';
import { valueAt } from '../../claims.js';
import type { MdocValueType, MsoMdocConfiguration } from '../../configurations.js';
import type { CredentialToSign } from '../../credentialSigner.js';
import { coseSignerOf, type IssuerSigningKey } from '../../signingKey.js';

const isObject = (v: unknown): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON (validated against the configuration by claims.ts) to the element's CBOR value. */
const elementValue = (value: Json, type: MdocValueType | undefined): unknown => {
  switch (type) {
    case 'full-date':
      return fullDate(value as string);
    case 'tdate':
      return tdate(new Date(value as string));
    case 'bytes':
      return Buffer.from(value as string, 'base64url');
    case 'driving_privileges':
      return (value as Json[]).map((privilege) =>
        isObject(privilege)
          ? new Map(Object.entries(privilege).map(([name, member]) => [name, (name === 'issue_date' || name === 'expiry_date') && typeof member === 'string' ? fullDate(member) : asCbor(member)]))
          : privilege,
      );
    default:
      return asCbor(value);
  }
};

// Objects become text-keyed maps, kept in the order given.
const asCbor = (value: Json): unknown =>
  Array.isArray(value) ? value.map(asCbor) : isObject(value) ? new Map(Object.entries(value).map(([k, v]) => [k, asCbor(v)])) : value;

export const signMsoMdoc = async (key: IssuerSigningKey, credential: CredentialToSign<MsoMdocConfiguration>): Promise<string> => {
  const nameSpaces = new Map<string, Map<string, unknown>>();
  for (const claim of credential.configuration.claims) {
    const value = valueAt(credential.claims, claim.path);
    if (value === undefined) continue;
    const [namespace, element] = claim.path;
    let elements = nameSpaces.get(namespace);
    if (!elements) nameSpaces.set(namespace, (elements = new Map()));
    elements.set(element, elementValue(value, claim.value_type));
  }
  const issued = await buildIssuerSigned({
    docType: credential.configuration.doctype,
    nameSpaces,
    deviceKey: credential.holderJwk,
    validFrom: credential.now,
    validUntil: new Date(credential.now.getTime() + credential.validitySeconds * 1000),
    ...(credential.status ? { status: { status_list: { idx: credential.status.idx, uri: credential.status.uri } } } : {}),
    signer: coseSignerOf(key),
    now: credential.now,
  });
  return Buffer.from(issued).toString('base64url');
};
