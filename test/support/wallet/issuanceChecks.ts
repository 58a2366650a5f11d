// Test-side helpers for issuance: create offers through the management API, wait for a status,
// and verify an issued SD-JWT VC with an independent library (@sd-jwt/sd-jwt-vc), with the key
// taken from the credential's own x5c leaf.
import { x509 } from '../../../src/crypto/x509.js';
import { webcrypto } from 'node:crypto';
import { exportJWK } from 'jose';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { TestService } from '../service.js';

export interface CreatedOffer {
  readonly offer_id: string;
  readonly credential_offer_uri: string;
  readonly tx_code_value?: string;
}

export const createOffer = async (service: TestService, body: unknown): Promise<CreatedOffer> => {
  const response = await service.management('/offers', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST /offers: ${response.status} ${await response.text()}`);
  return (await response.json()) as CreatedOffer;
};

export const PID_CLAIMS = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1964-08-12',
  nationalities: ['DE'],
  address: { locality: 'Köln', country: 'DE' },
  age_equal_or_over: { '18': true },
  issuing_authority: 'DE',
  issuing_country: 'DE',
};

export interface OfferStatusBody {
  readonly status: string;
  readonly claims_purged: boolean;
  readonly error_details?: string;
}

/** Polls GET /offers/:id until `done` holds; bounded, so a stuck flow fails the test instead of hanging. */
export const waitForOffer = async (
  service: TestService,
  offerId: string,
  done: (body: OfferStatusBody) => boolean,
  attempts = 200,
): Promise<OfferStatusBody> => {
  let last: OfferStatusBody | undefined;
  for (let i = 0; i < attempts; i++) {
    const response = await service.management(`/offers/${offerId}`);
    if (response.status === 200) {
      last = (await response.json()) as OfferStatusBody;
      if (done(last)) return last;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`offer ${offerId} never reached the expected state; last ${JSON.stringify(last)}`);
};

export interface VerifiedCredential {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
  readonly disclosures: number;
  readonly leaf: x509.X509Certificate;
}

/**
 * The Status List Token at `uri`, fetched from the service's real listen address, as
 * @sd-jwt/sd-jwt-vc's own fetcher would: `Accept` and the media type of the answer.
 */
export const statusListFetcher = (service: TestService) => async (uri: string): Promise<string> => {
  if (!uri.startsWith(`${service.config.publicUrl}/`)) throw new Error(`status list ${uri} is not under ${service.config.publicUrl}`);
  const response = await service.wallet(uri.slice(service.config.publicUrl.length), { headers: { Accept: 'application/statuslist+jwt' } });
  if (response.status !== 200) throw new Error(`status list answered ${response.status}`);
  if (response.headers.get('content-type') !== 'application/statuslist+jwt') throw new Error('status list media type');
  return response.text();
};

/**
 * Verifies signature (key from the x5c leaf), digests, vct and, when the credential has one, its
 * Status List entry (the list served by `service`, signed by the same key, status VALID) with
 * @sd-jwt/sd-jwt-vc.
 */
export const verifyIssuedCredential = async (service: TestService, credential: string): Promise<VerifiedCredential> => {
  const [jws] = credential.split('~');
  const header = JSON.parse(Buffer.from(jws!.split('.')[0]!, 'base64url').toString('utf8')) as { x5c?: string[] };
  const leafDer = header.x5c?.[0];
  if (!leafDer) throw new Error('no x5c in the credential header');
  const leaf = new x509.X509Certificate(Buffer.from(leafDer, 'base64'));
  const publicKey = await leaf.publicKey.export({ name: 'ECDSA', namedCurve: 'P-256' }, ['verify'], webcrypto);
  const verifier = await ES256.getVerifier(await exportJWK(publicKey));
  const sdjwt = new SDJwtVcInstance({ hasher: digest, verifier, statusListFetcher: statusListFetcher(service) });
  const verified = await sdjwt.verify(credential);
  const decoded = await sdjwt.decode(credential);
  return {
    header: verified.header as Record<string, unknown>,
    payload: decoded.jwt!.payload as Record<string, unknown>,
    claims: verified.payload as Record<string, unknown>,
    disclosures: decoded.disclosures?.length ?? 0,
    leaf,
  };
};
