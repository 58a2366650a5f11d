// Client authentication of a wallet by its wallet attestation (OAuth 2.0 Attestation-Based Client
// Authentication, as OpenID4VCI 1.0 Appendix E and HAIP 1.0 profile it): the
// `OAuth-Client-Attestation` header carries a JWT the wallet provider signed about the wallet
// instance's key, the `OAuth-Client-Attestation-PoP` header a JWT that key signed for this issuer.
// The attestation must chain (x5c, anchor excluded) to a trusted wallet provider
// (src/trust/walletProviderTrust.ts: a trusted list's WALLET_PROVIDER service in good standing, or
// WALLET_PROVIDER_TRUST_ANCHORS); its PoP is fresh, for this issuer, and used once (its jti is
// spent in the store, like a DPoP proof's). The checks and the spending are apart, so the token and
// PAR endpoints can check the request's DPoP proof (and nonce) in between: a wallet told
// `use_dpop_nonce` sends the same PoP again. Every failure fails closed with the reason, which
// the routes send as `invalid_client`.
import { createHash } from 'node:crypto';
import { isLeft, left, right, type Either } from 'fp-ts/lib/Either.js';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { clientAttestationPop, clientAttestationPopStream } from '../../streams/clientAttestationPop.js';
import { isRecord } from '../../streams/kernel.js';
import type { EventStore } from '../eventstore/port.js';
import type { WalletProviderTrust } from '../trust/walletProviderTrust.js';
import { parseX5c, validateChain, verificationKeyOf } from '../trust/x509Chain.js';
import type { AtIssuer, IssuanceContext } from './context.js';
import type { Config } from '../config/config.js';
import { spendOnce } from './singleUse.js';

export const CLIENT_ATTESTATION_HEADER = 'oauth-client-attestation';
export const CLIENT_ATTESTATION_POP_HEADER = 'oauth-client-attestation-pop';
export const ATTESTATION_TYP = 'oauth-client-attestation+jwt';
export const ATTESTATION_POP_TYP = 'oauth-client-attestation-pop+jwt';
export const CLIENT_AUTH_METHOD = 'attest_jwt_client_auth';

/** Tolerated clock difference for a PoP dated slightly in the future. */
const SKEW_SECONDS = 5;

/** The authenticated wallet: what the offer's stream records about who received what. */
export interface AttestedWallet {
  /** `sub` of the attestation: the wallet's client_id. */
  readonly clientId: string;
  /** `iss` of the attestation: the wallet provider. */
  readonly walletProvider: string;
  /** Subject of the wallet provider's signing certificate. */
  readonly walletProviderCertificate: string;
  /** `wallet_name` of the attestation, when it has one. */
  readonly walletName: string | null;
  /** RFC 7638 thumbprint of the wallet instance key (`cnf.jwk`). */
  readonly keyThumbprint: string;
}

type Failure = { readonly ok: false; readonly missing: boolean; readonly reason: string };
export type WalletAuthentication = { readonly ok: true; readonly wallet: AttestedWallet } | Failure;
/** An attestation and PoP that passed every check; the PoP's jti is not spent yet. */
export type CheckedAttestation = { readonly ok: true; readonly wallet: AttestedWallet; readonly popId: string } | Failure;

export interface WalletAttestationCheck {
  /** The two headers as received (undefined when absent). */
  readonly attestation: string | readonly string[] | undefined;
  readonly pop: string | readonly string[] | undefined;
  /** `client_id` of the request, when it has one: the attestation's `sub` must be it. */
  readonly clientId: string | undefined;
  /** The issuer identifier: the PoP's `aud`. */
  readonly issuer: string;
  /** Where a wallet provider's chain must end. */
  readonly walletProviders: WalletProviderTrust;
  readonly now: Date;
  readonly maxAgeSeconds: number;
}

const fail = (reason: string): Failure => ({ ok: false, missing: false, reason });

const oneHeader = (value: string | readonly string[] | undefined): string | undefined =>
  // Node joins repeated headers with ", "; a compact JWS never contains a comma.
  typeof value === 'string' && value !== '' && !value.includes(',') ? value : undefined;

const isPublicEcKey = (jwk: unknown): jwk is JWK => isRecord(jwk) && jwk['kty'] === 'EC' && jwk['crv'] === 'P-256' && !('d' in jwk);

/** Every check of the attestation and its PoP but the PoP's single use. */
export const checkWalletAttestation = async (check: WalletAttestationCheck): Promise<CheckedAttestation> => {
  if (check.attestation === undefined && check.pop === undefined) {
    return { ok: false, missing: true, reason: 'Client authentication by wallet attestation is required (OAuth-Client-Attestation and OAuth-Client-Attestation-PoP headers).' };
  }
  const attestation = oneHeader(check.attestation);
  const pop = oneHeader(check.pop);
  if (attestation === undefined || pop === undefined) return fail('Send exactly one OAuth-Client-Attestation and one OAuth-Client-Attestation-PoP header.');

  let x5c: unknown;
  try {
    const header = decodeProtectedHeader(attestation);
    if (header.typ !== ATTESTATION_TYP) return fail(`The wallet attestation must be typed ${ATTESTATION_TYP}.`);
    x5c = header.x5c;
  } catch {
    return fail('The wallet attestation is not a JWT.');
  }
  const chain = parseX5c(x5c);
  if (isLeft(chain)) return fail(`The wallet attestation's ${chain.left}.`);
  const valid = await validateChain(chain.right, check.now);
  if (isLeft(valid)) return fail(`The wallet provider's certificate chain is not valid: ${valid.left}.`);
  const anchor = await check.walletProviders.anchorOf(chain.right, check.now);
  if (isLeft(anchor)) return fail(anchor.left);
  const leaf = chain.right[0]!;

  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(attestation, await verificationKeyOf(leaf), { typ: ATTESTATION_TYP, algorithms: ['ES256'], currentDate: check.now, clockTolerance: SKEW_SECONDS }));
  } catch (err) {
    const expired = (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
    return fail(expired ? 'The wallet attestation has expired.' : 'The wallet attestation is not ES256 or its signature does not verify with the x5c leaf.');
  }
  const { iss, sub, exp, cnf, wallet_name: walletName } = claims;
  if (typeof iss !== 'string' || iss === '') return fail('The wallet attestation needs iss (the wallet provider).');
  if (typeof sub !== 'string' || sub === '') return fail('The wallet attestation needs sub (the client_id).');
  if (check.clientId !== undefined && sub !== check.clientId) return fail("The wallet attestation's sub is not the client_id.");
  if (typeof exp !== 'number') return fail('The wallet attestation needs exp.');
  const jwk = (cnf as { jwk?: unknown } | undefined)?.jwk;
  if (!isPublicEcKey(jwk)) return fail('The wallet attestation needs cnf.jwk, a public P-256 key.');

  let popClaims: Record<string, unknown>;
  try {
    ({ payload: popClaims } = await jwtVerify(pop, await importJWK(jwk, 'ES256'), { typ: ATTESTATION_POP_TYP, algorithms: ['ES256'] }));
  } catch {
    return fail(`The wallet attestation PoP is malformed, not ES256, not typed ${ATTESTATION_POP_TYP}, or not signed by the attestation's cnf.jwk.`);
  }
  const { aud, iat, jti } = popClaims;
  // draft-07, which OpenID4VCI 1.0 pins, has the PoP's iss; later drafts drop it.
  if (popClaims['iss'] !== undefined && popClaims['iss'] !== sub) return fail("The wallet attestation PoP's iss is not the client_id.");
  if (!(aud === check.issuer || (Array.isArray(aud) && aud.length === 1 && aud[0] === check.issuer))) {
    return fail(`The wallet attestation PoP's aud must be ${check.issuer}.`);
  }
  const nowSeconds = check.now.getTime() / 1000;
  if (typeof iat !== 'number' || iat > nowSeconds + SKEW_SECONDS || iat < nowSeconds - check.maxAgeSeconds) return fail('The wallet attestation PoP is not fresh: check its iat.');
  if (typeof jti !== 'string' || jti === '' || jti.length > 256) return fail('The wallet attestation PoP needs a jti.');
  const keyThumbprint = await calculateJwkThumbprint(jwk, 'sha256');
  return {
    ok: true,
    wallet: { clientId: sub, walletProvider: iss, walletProviderCertificate: leaf.subject, walletName: typeof walletName === 'string' ? walletName : null, keyThumbprint },
    popId: createHash('sha256').update(`${keyThumbprint}.${jti}`, 'utf8').digest('base64url'),
  };
};

/** Spends a checked PoP's jti: true the first time, false for a replay. */
export const spendAttestationPop = (store: EventStore, checked: { readonly wallet: AttestedWallet; readonly popId: string }, now: Date): Promise<boolean> =>
  spendOnce(store, clientAttestationPop, clientAttestationPopStream(checked.popId), { usedAt: now.toISOString(), clientId: checked.wallet.clientId });

const REPLAYED = 'The wallet attestation PoP was already used (jti replayed).';

/** Checks the attestation and spends its PoP. */
export const authenticateWallet = async (store: EventStore, check: WalletAttestationCheck): Promise<WalletAuthentication> => {
  const checked = await checkWalletAttestation(check);
  if (!checked.ok) return checked;
  return (await spendAttestationPop(store, checked, check.now)) ? { ok: true, wallet: checked.wallet } : fail(REPLAYED);
};

/** What checking a wallet request's attestation uses. */
export type WalletRequestPorts = Pick<IssuanceContext, 'store' | 'walletProviders'> & AtIssuer & { readonly config: Pick<Config, 'proofMaxAgeSeconds'> };

/** The attestation headers of a wallet request, as received. */
export interface AttestationHeaders {
  readonly attestation: string | readonly string[] | undefined;
  readonly attestationPop: string | readonly string[] | undefined;
}

/** The wallet's authentication failed (answered `401 invalid_client` with the reason). */
export interface WalletUnauthenticated {
  readonly _tag: 'WalletUnauthenticated';
  readonly reason: string;
}

/**
 * The attestation of a wallet request, checked but its PoP not yet spent, and how to spend it once
 * the rest of the request is checked.
 */
export const attestWallet = async (
  ports: WalletRequestPorts,
  headers: AttestationHeaders,
  clientId: string | undefined,
  now: Date,
): Promise<Either<WalletUnauthenticated, { readonly wallet: AttestedWallet; spend(): Promise<Either<WalletUnauthenticated, void>> }>> => {
  const checked = await checkWalletAttestation({
    attestation: headers.attestation,
    pop: headers.attestationPop,
    clientId,
    issuer: ports.issuer.identifier,
    walletProviders: ports.walletProviders,
    now,
    maxAgeSeconds: ports.config.proofMaxAgeSeconds,
  });
  if (!checked.ok) return left({ _tag: 'WalletUnauthenticated', reason: checked.reason });
  return right({
    wallet: checked.wallet,
    spend: async () => ((await spendAttestationPop(ports.store, checked, now)) ? right(undefined) : left({ _tag: 'WalletUnauthenticated', reason: REPLAYED })),
  });
};
