// Revocation by CRL (RFC 5280, 5): fetch the CRL named in a certificate's CRL Distribution Points,
// check it was signed by the certificate's issuer, names that issuer and is current, then look the
// serial number up. A CRL that cannot be had is an outcome (`unknown`, with the reason), never an
// exception: the caller decides what unknown means (trust verification fails closed on it).
//
// Only chains already resolved to a trust anchor reach this module, so the URLs fetched come from
// certificates a trusted CA signed; they still go through the egress guard (src/egress/egress.ts),
// as the certificates travel with whoever sent the presentation. A CRL is fetched with bounded
// time and size, and a redirect is reported, never followed: RFC 5280 names the CRL's place.
import { x509 } from '../crypto/x509.js';
import type { Egress } from '../egress/egress.js';
import { describeCertificate } from './x509Chain.js';

type Certificate = x509.X509Certificate;

export type RevocationStatus =
  | { readonly status: 'good' }
  | { readonly status: 'revoked'; readonly reason: string }
  | { readonly status: 'unknown'; readonly reason: string };

export interface CrlCheckerOptions {
  readonly egress: Egress;
  /** X509_CRL_TIMEOUT_SECONDS, in milliseconds: bounds the whole fetch, body included. */
  readonly timeoutMs: number;
  /** Larger responses are abandoned: a CRL endpoint must not be able to exhaust memory. */
  readonly maxBytes?: number;
  /** Distinct CRL URLs kept; the oldest is dropped beyond it. */
  readonly maxCached?: number;
}

export interface CrlChecker {
  /** Revocation status of `certificate` (at `index` in its chain, for messages), issued by `issuer`. */
  check(certificate: Certificate, index: number, issuer: Certificate, now: Date): Promise<RevocationStatus>;
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_CACHED = 256;

/** The http(s) URLs of a certificate's CRL Distribution Points (other name forms are skipped). */
export const crlDistributionPoints = (certificate: Certificate): string[] => {
  const extension = certificate.getExtension(x509.CRLDistributionPointsExtension);
  if (!extension) return [];
  const urls: string[] = [];
  for (const point of extension.distributionPoints) {
    for (const name of point.distributionPoint?.fullName ?? []) {
      const url = name.uniformResourceIdentifier;
      if (url && /^https?:\/\//i.test(url)) urls.push(url);
    }
  }
  return urls;
};

/** Why a CRL could not be had; the message completes "CRL <url> ...". */
class CrlUnavailable extends Error {}

const download = async (egress: Egress, url: string, timeoutMs: number, maxBytes: number): Promise<x509.X509Crl> => {
  const answer = await egress.request({ method: 'GET', url, timeoutMs, maxBytes });
  if (answer._tag === 'Left') throw new CrlUnavailable(answer.left.detail);
  const { status, body, truncated } = answer.right;
  if (status >= 300 && status < 400) throw new CrlUnavailable(`answered HTTP ${status} (redirects are not followed)`);
  if (status < 200 || status > 299) throw new CrlUnavailable(`answered HTTP ${status}`);
  if (truncated) throw new CrlUnavailable(`response larger than ${maxBytes} bytes`);
  try {
    return new x509.X509Crl(body);
  } catch {
    throw new CrlUnavailable('is not a DER or PEM CRL');
  }
};

export const createCrlChecker = (options: CrlCheckerOptions): CrlChecker => {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxCached = options.maxCached ?? DEFAULT_MAX_CACHED;
  // Promises, so concurrent verifications of one issuer share one download.
  const cache = new Map<string, Promise<x509.X509Crl>>();

  const crlAt = (url: string, now: Date): Promise<x509.X509Crl> => {
    const cached = cache.get(url);
    if (cached) return cached.then((crl) => (crl.nextUpdate && crl.nextUpdate >= now ? crl : refetch(url)));
    return refetch(url);
  };

  const refetch = (url: string): Promise<x509.X509Crl> => {
    const pending = download(options.egress, url, options.timeoutMs, maxBytes);
    cache.delete(url);
    cache.set(url, pending);
    // A failure is not cached: the next verification tries again.
    pending.catch(() => {
      if (cache.get(url) === pending) cache.delete(url);
    });
    for (const key of cache.keys()) {
      if (cache.size <= maxCached) break;
      cache.delete(key);
    }
    return pending;
  };

  const checkOne = async (url: string, certificate: Certificate, index: number, issuer: Certificate, now: Date): Promise<RevocationStatus> => {
    const name = describeCertificate(certificate, index);
    let crl: x509.X509Crl;
    try {
      crl = await crlAt(url, now);
    } catch (err) {
      if (!(err instanceof CrlUnavailable)) throw err;
      return { status: 'unknown', reason: `revocation status of ${name} unknown: CRL ${url} ${err.message}` };
    }
    // A CRL that is not the issuer's is not kept: the next verification fetches again.
    if (crl.issuer !== issuer.subject) {
      cache.delete(url);
      return { status: 'unknown', reason: `revocation status of ${name} unknown: CRL ${url} is issued by ${crl.issuer}, not ${issuer.subject}` };
    }
    if (!(await crl.verify({ publicKey: issuer }).catch(() => false))) {
      cache.delete(url);
      return { status: 'unknown', reason: `revocation status of ${name} unknown: CRL ${url} signature does not verify with the issuer's key` };
    }
    if (crl.thisUpdate > now) return { status: 'unknown', reason: `revocation status of ${name} unknown: CRL ${url} is not valid before ${crl.thisUpdate.toISOString()}` };
    if (!crl.nextUpdate || crl.nextUpdate < now) return { status: 'unknown', reason: `revocation status of ${name} unknown: CRL ${url} is past its nextUpdate` };
    const entry = crl.findRevoked(certificate);
    return entry ? { status: 'revoked', reason: `${name} is revoked since ${entry.revocationDate.toISOString()} (CRL ${url})` } : { status: 'good' };
  };

  return {
    // A certificate without distribution points has no revocation source: good by RFC 5280's
    // rules, as nothing says otherwise. With several points, the first that answers decides.
    async check(certificate, index, issuer, now) {
      const urls = crlDistributionPoints(certificate);
      let unknown: RevocationStatus | undefined;
      for (const url of urls) {
        const status = await checkOne(url, certificate, index, issuer, now);
        if (status.status !== 'unknown') return status;
        unknown ??= status;
      }
      return unknown ?? { status: 'good' };
    },
  };
};
