// What a verified trusted list says, whatever its encoding: a TS 119 612 list (XML, `lotl` or
// `tl`) and a TS 119 602 List of Trusted Entities (JSON in a JWS, `lote`) both become a
// `TrustList`. Only what trust decisions and operators need is kept.
import type { x509 } from '../crypto/x509.js';

/** One status a service held, from `from` on; a LoTE service may have none (being listed is its status). */
export interface StatusPeriod {
  readonly status: string | undefined;
  readonly from: Date | undefined;
}

export interface TrustService {
  readonly providerName: string;
  readonly serviceName: string;
  /** ServiceTypeIdentifier URI. */
  readonly type: string;
  /** The current status first, then the service history, newest first. */
  readonly statuses: readonly StatusPeriod[];
  /** The certificates of the service's digital identity. */
  readonly certificates: readonly x509.X509Certificate[];
  /** The entity's own country when it names one (LoTE); else the list's territory applies. */
  readonly country: string | undefined;
}

/** A LoTL's pointer to another list, with the certificates allowed to sign that list. */
export interface TrustListPointer {
  readonly url: string;
  readonly territory: string | undefined;
  readonly mimeType: string | undefined;
  readonly listType: string | undefined;
  /** DER of each certificate of the pointer's service digital identities. */
  readonly signingCertificates: readonly Uint8Array[];
}

export interface TrustList {
  /** TSLType or LoTEType URI. */
  readonly listType: string;
  readonly territory: string | undefined;
  readonly operator: string;
  readonly sequenceNumber: number;
  readonly issuedAt: Date;
  /** Absent for a closed list (TS 119 612 allows an empty NextUpdate). */
  readonly nextUpdate: Date | undefined;
  readonly services: readonly TrustService[];
  readonly pointers: readonly TrustListPointer[];
}

/** The XML pointers a LoTL asks to follow: not itself, not the PDF copies. */
export const followedPointers = (list: TrustList, selfUrl: string, territories: readonly string[] | undefined): TrustListPointer[] =>
  list.pointers.filter(
    (p) =>
      p.url !== selfUrl &&
      !(p.listType ?? '').endsWith('/EUlistofthelists') &&
      (p.mimeType === undefined || /xml/i.test(p.mimeType)) &&
      (territories === undefined || (p.territory !== undefined && territories.includes(p.territory))),
  );
