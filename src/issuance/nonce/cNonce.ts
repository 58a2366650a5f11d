// The nonce step's c_nonce (OpenID4VCI section 7), apart from its HTTP edge (./route.ts). Handing
// one out writes nothing: the value is `<id>.<expiry>.<mac>`, so it is unforgeable and carries its
// own lifetime. Spending it in a key proof records `cnonce-<id>` with `no_stream`, so each nonce is
// accepted once. A tenant's own credential issuer's nonces are MACed together with its identifier
// (`credentialIssuer`, what its offers record), so one issuer's c_nonce is unknown at another's;
// the deployment's are MACed as they always were.
import { cNonce, cNonceStream } from '../../../streams/cNonce.js';
import type { EventStore } from '../../eventstore/port.js';
import { randomToken, type IssuanceSecrets } from '../secrets.js';
import { spendOnce } from '../singleUse.js';

const NONCE = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** What the nonce's MAC covers: the payload, after the issuer's identifier for a tenant's own issuer. */
const macked = (payload: string, credentialIssuer: string | undefined): string => (credentialIssuer === undefined ? payload : `${credentialIssuer} ${payload}`);

export const issueCNonce = (secrets: IssuanceSecrets, now: Date, ttlSeconds: number, credentialIssuer?: string): string => {
  const payload = `${randomToken(16)}.${Math.floor(now.getTime() / 1000) + ttlSeconds}`;
  return `${payload}.${secrets.mac('c_nonce', macked(payload, credentialIssuer))}`;
};

export type CNonceRejection = 'unknown' | 'expired' | 'used';

/** Spends the nonce; undefined when accepted. */
export const spendCNonce = async (
  store: EventStore,
  secrets: IssuanceSecrets,
  nonce: string,
  now: Date,
  credentialIssuer?: string,
): Promise<CNonceRejection | undefined> => {
  const m = NONCE.exec(nonce);
  if (!m || !secrets.verify('c_nonce', macked(`${m[1]}.${m[2]}`, credentialIssuer), m[3]!)) return 'unknown';
  const expiresAt = Number(m[2]) * 1000;
  if (expiresAt <= now.getTime()) return 'expired';
  const spent = await spendOnce(store, cNonce, cNonceStream(m[1]!), {
    usedAt: now.toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
  });
  return spent ? undefined : 'used';
};
