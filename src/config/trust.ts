// The trust settings an operator gives as text: the static trust anchors (X509_TRUST_ANCHORS) and
// the trusted lists to follow (X509_TRUST_LIST_SOURCES). Both are checked whole when the
// configuration is read (every certificate parsed), so a typo stops the process at start instead
// of failing every verification, or leaving an issuer untrusted, later. The trust feature
// resolves trust with the values; what they may hold is said here, below it.
import { readFileSync } from 'node:fs';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { certificateFromBase64, x509 } from '../crypto/x509.js';
import { isRecord } from '../../streams/kernel.js';

const entriesOf = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');

/** X509_TRUST_ANCHORS, used when X509_VERIFY_TRUST_ANCHOR is true: comma-separated base64 DER certificates; whitespace around entries is ignored. */
export const TrustAnchorsFromString = new t.Type<readonly string[], string, unknown>(
  'TrustAnchorsFromString',
  (u): u is readonly string[] => Array.isArray(u) && u.every((s) => typeof s === 'string'),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected comma-separated base64 DER certificates');
    const entries = entriesOf(u);
    const bad = entries.findIndex((s) => isLeft(certificateFromBase64(s)));
    if (bad >= 0) return t.failure(u, c, `entry ${bad + 1} is not a base64 DER X.509 certificate`);
    return t.success(entries);
  },
  (a) => a.join(','),
);

// X509_TRUST_LIST_SOURCES: a JSON array given inline or as the path of a file holding it.

const FORMATS = ['lotl', 'tl', 'lote'] as const;
export type ListFormat = (typeof FORMATS)[number];

const MEANINGS = ['trusted', 'withdrawn', 'suspended'] as const;
/** What a status means; a source's `statusMap` may name more statuses with these meanings. */
export type StatusMeaning = (typeof MEANINGS)[number];
export type StatusMap = Readonly<Record<string, StatusMeaning>>;

export interface TrustListSource {
  readonly id: string;
  readonly format: ListFormat;
  readonly url: string;
  /** DER of each certificate allowed to sign the list. */
  readonly signingCertificates: readonly Uint8Array[];
  /** For a LoTL: follow only the pointers to these territories. */
  readonly territories?: readonly string[];
  readonly statusMap?: StatusMap;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** An absolute http(s) URL without credentials: the list's signature, not the transport, protects its content. */
const isListUrl = (raw: string): boolean => {
  try {
    const url = new URL(raw);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && raw === raw.trim();
  } catch {
    return false;
  }
};

const certificate = (u: unknown): Uint8Array | undefined => {
  if (typeof u !== 'string' || !/^[A-Za-z0-9+/\s]+={0,2}$/.test(u)) return undefined;
  const der = Buffer.from(u.replace(/\s+/g, ''), 'base64');
  try {
    new x509.X509Certificate(der);
    return der;
  } catch {
    return undefined;
  }
};

const source = (u: unknown, at: string): TrustListSource | string => {
  if (!isRecord(u)) return `${at} is not an object`;
  const known = ['id', 'format', 'url', 'signingCertificates', 'territories', 'statusMap'];
  const unknown = Object.keys(u).find((k) => !known.includes(k));
  if (unknown !== undefined) return `${at} has an unknown member ${JSON.stringify(unknown)}`;
  const { id, format, url, signingCertificates, territories, statusMap } = u;
  if (typeof id !== 'string' || !ID.test(id)) return `${at}.id must be 1-64 letters, digits, "_" or "-"`;
  const named = `${at} (${id})`;
  if (typeof format !== 'string' || !(FORMATS as readonly string[]).includes(format)) return `${named}.format must be one of ${FORMATS.join(', ')}`;
  if (typeof url !== 'string' || !isListUrl(url)) return `${named}.url must be an absolute http(s) URL without credentials`;
  if (!Array.isArray(signingCertificates) || signingCertificates.length === 0) return `${named}.signingCertificates must be a non-empty array`;
  const certificates: Uint8Array[] = [];
  for (const [index, entry] of signingCertificates.entries()) {
    const der = certificate(entry);
    if (der === undefined) return `${named}.signingCertificates[${index}] is not a base64 DER X.509 certificate`;
    certificates.push(der);
  }
  if (territories !== undefined) {
    if (format !== 'lotl') return `${named}.territories applies to a lotl source only`;
    if (!Array.isArray(territories) || territories.length === 0 || !territories.every((c) => typeof c === 'string' && /^[A-Z]{2}$/.test(c))) {
      return `${named}.territories must be a non-empty array of two-letter territory codes such as "DE"`;
    }
  }
  if (statusMap !== undefined) {
    if (!isRecord(statusMap) || !Object.values(statusMap).every((m) => typeof m === 'string' && (MEANINGS as readonly string[]).includes(m))) {
      return `${named}.statusMap must map status URIs to ${MEANINGS.join(', ')}`;
    }
  }
  return {
    id,
    format: format as ListFormat,
    url,
    signingCertificates: certificates,
    ...(territories !== undefined ? { territories: territories as string[] } : {}),
    ...(statusMap !== undefined ? { statusMap: statusMap as StatusMap } : {}),
  };
};

/** The sources a JSON text describes, or the first problem found. */
export const parseTrustListSources = (text: string): readonly TrustListSource[] | string => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'is not valid JSON';
  }
  if (!Array.isArray(value) || value.length === 0) return 'must be a non-empty JSON array of sources';
  const sources: TrustListSource[] = [];
  for (const [index, entry] of value.entries()) {
    const parsed = source(entry, `source ${index + 1}`);
    if (typeof parsed === 'string') return parsed;
    if (sources.some((s) => s.id === parsed.id)) return `source ${index + 1} repeats the id ${parsed.id}`;
    if (sources.some((s) => s.url === parsed.url)) return `source ${index + 1} (${parsed.id}) repeats the url of another source`;
    sources.push(parsed);
  }
  return sources;
};

/** Inline JSON (starting with `[`) or the path of a file holding it. */
export const TrustListSourcesFromString = new t.Type<readonly TrustListSource[], string, unknown>(
  'TrustListSources',
  (u): u is readonly TrustListSource[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected a JSON array of sources, or the path of a file holding one');
    let text = u;
    if (!u.trim().startsWith('[')) {
      try {
        text = readFileSync(u, 'utf8');
      } catch {
        return t.failure(u, c, 'is neither a JSON array nor the path of a readable file');
      }
    }
    const parsed = parseTrustListSources(text);
    return typeof parsed === 'string' ? t.failure(u, c, parsed) : t.success(parsed);
  },
  (a) => JSON.stringify(a.map((s) => ({ ...s, signingCertificates: s.signingCertificates.map((d) => Buffer.from(d).toString('base64')) }))),
);
