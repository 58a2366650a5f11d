// The trusted lists in use, indexed once per snapshot so that a presentation costs map look-ups:
// service certificates by the SHA-256 of their DER (a chain certificate that is listed itself)
// and by subject name and subject key identifier (a chain certificate a listed certificate
// issued). What a chain certificate matches is kept for the snapshot's life, so a returning issuer
// costs no signature check at all.
import { createHash } from 'node:crypto';
import { x509 } from '../crypto/x509.js';
import type { ListFormat, StatusMap, StatusMeaning } from '../config/trust.js';
import { categoryOf, meaningOf, type ServiceCategory } from './serviceMapping.js';
import type { TrustList, TrustService } from './trustList.js';

type Certificate = x509.X509Certificate;

/** One accepted list version and where it came from; how current it is lives with the store. */
export interface ListEntry {
  readonly sourceId: string;
  readonly format: ListFormat;
  readonly url: string;
  /** The LoTL whose pointer pinned this list's signers; undefined for a configured source. */
  readonly parentUrl: string | undefined;
  readonly list: TrustList;
  /** SHA-256 (hex) of the signed document as fetched. */
  readonly digest: string;
  readonly statusMap: StatusMap | undefined;
}

/** A status period with its meaning worked out once, when the snapshot is indexed. */
export interface IndexedPeriod {
  /** Epoch milliseconds; -Infinity when the list gives no starting time. */
  readonly from: number;
  readonly meaning: StatusMeaning | undefined;
}

export interface ServiceEntry {
  readonly list: ListEntry;
  readonly service: TrustService;
  readonly certificate: Certificate;
  readonly category: ServiceCategory | undefined;
  /** The service's statuses, current first (as in `service.statuses`). */
  readonly periods: readonly IndexedPeriod[];
}

/** A service certificate that vouches for chain certificate `index`: it is that certificate, or issued it. */
export interface ChainMatch extends ServiceEntry {
  readonly index: number;
  readonly how: 'same' | 'issued';
}

const derDigest = (certificate: Certificate): string => createHash('sha256').update(Buffer.from(certificate.rawData)).digest('hex');

// A malformed extension in someone else's certificate must not stop the index from being built.
const subjectKeyId = (certificate: Certificate): string | undefined => {
  try {
    return certificate.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId.toLowerCase();
  } catch {
    return undefined;
  }
};

const authorityKeyId = (certificate: Certificate): string | undefined => {
  try {
    return certificate.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId?.toLowerCase();
  } catch {
    return undefined;
  }
};

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const values = map.get(key);
  if (values) values.push(value);
  else map.set(key, [value]);
};

interface CertificateMatches {
  readonly same: readonly ServiceEntry[];
  readonly issuedBy: readonly ServiceEntry[];
}

export class SnapshotIndex {
  private readonly byDer = new Map<string, ServiceEntry[]>();
  private readonly bySubject = new Map<string, ServiceEntry[]>();
  private readonly byKeyId = new Map<string, ServiceEntry[]>();
  private readonly known = new WeakMap<Certificate, Promise<CertificateMatches>>();

  constructor(readonly lists: readonly ListEntry[]) {
    for (const list of lists) {
      for (const service of list.list.services) {
        const category = categoryOf(service.type);
        const periods = service.statuses.map((p) => ({ from: p.from?.getTime() ?? -Infinity, meaning: meaningOf(p.status, list.format, list.statusMap) }));
        for (const certificate of service.certificates) {
          const entry = { list, service, certificate, category, periods };
          push(this.byDer, derDigest(certificate), entry);
          push(this.bySubject, certificate.subject, entry);
          const keyId = subjectKeyId(certificate);
          if (keyId) push(this.byKeyId, keyId, entry);
        }
      }
    }
  }

  /** Number of service certificates indexed. */
  get size(): number {
    let n = 0;
    for (const entries of this.byDer.values()) n += entries.length;
    return n;
  }

  private matchesOf(certificate: Certificate): Promise<CertificateMatches> {
    let pending = this.known.get(certificate);
    if (!pending) {
      pending = this.lookUp(certificate);
      this.known.set(certificate, pending);
    }
    return pending;
  }

  private async lookUp(certificate: Certificate): Promise<CertificateMatches> {
    const same = this.byDer.get(derDigest(certificate)) ?? [];
    const keyId = authorityKeyId(certificate);
    const candidates = new Set([...(this.bySubject.get(certificate.issuer) ?? []), ...(keyId ? (this.byKeyId.get(keyId) ?? []) : [])]);
    const issuedBy: ServiceEntry[] = [];
    for (const candidate of candidates) {
      if (await certificate.verify({ publicKey: candidate.certificate, signatureOnly: true }).catch(() => false)) issuedBy.push(candidate);
    }
    return { same, issuedBy };
  }

  /**
   * Every listed service certificate that vouches for a certificate of `chain` (leaf first,
   * already validated): the same certificate, or its issuer (name or key identifier, and a
   * signature that verifies). A service certificate counts only while valid at `now`.
   */
  async matches(chain: readonly Certificate[], now: Date): Promise<ChainMatch[]> {
    const out: ChainMatch[] = [];
    for (const [index, certificate] of chain.entries()) {
      const { same, issuedBy } = await this.matchesOf(certificate);
      for (const entry of same) out.push({ ...entry, index, how: 'same' });
      for (const entry of issuedBy) {
        if (now >= entry.certificate.notBefore && now <= entry.certificate.notAfter) out.push({ ...entry, index, how: 'issued' });
      }
    }
    return out;
  }
}
