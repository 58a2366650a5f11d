// What the wallet simulator answers a Digital Credentials API request with: the page's origin, its
// key and credentials, its trust, and the bends the connector's negative tests use.
import type { JWK } from 'jose';
import type { x509 } from '../src/crypto/x509.js';
import type { WalletKey } from './keys.js';
import type { StoredCredential } from './store.js';

export interface DcApiWallet {
  /** The page's origin, as the browser asserts it. */
  readonly origin: string;
  readonly holderKey: WalletKey;
  readonly credentials: readonly StoredCredential[];
  /** Anchors a signed request's x5c chain must lead to; absent: any chain (a simulator). */
  readonly trustAnchors?: readonly x509.X509Certificate[];
  readonly now?: Date;
  readonly say?: (line: string) => void;
  /** Changes to the honest answer, for the connector's negative tests: each names what it breaks. */
  readonly bend?: DcApiBend;
}

export interface DcApiBend {
  /** The KB-JWT's `aud` instead of `origin:<origin>` (the client_id, another origin). */
  readonly audience?: string;
  /** The origin the mdoc's handover (or Annex C's SessionTranscript) names instead of the page's. */
  readonly handoverOrigin?: string;
  /** The nonce the mdoc's OpenID4VPDCAPIHandover names instead of the request's. */
  readonly handoverNonce?: string;
  /** Encrypt the answer to this public key (a JWK) instead of the request's. */
  readonly encryptTo?: JWK;
}
