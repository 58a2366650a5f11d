// The wallet's issuance half (wallet/issuance.ts) as the tests drive it: the issuer (the
// service's PUBLIC_URL unless told) found by its metadata, reached at the address the service
// really listens on (transport.ts).
import { IssuanceWallet as Wallet, type IssuanceKeys } from '../../../wallet/issuance.js';
import { discoverIssuer, type IssuerEndpoints } from '../../../wallet/issuerMetadata.js';
import { newWalletKey } from '../../../wallet/keys.js';
import { walletFetch } from './transport.js';

export class IssuanceWallet extends Wallet {
  private constructor(
    endpoints: IssuerEndpoints,
    private readonly publicUrl: string,
    listenUrl: string,
    keys: IssuanceKeys,
  ) {
    super(endpoints, walletFetch({ publicUrl, listenUrl }), keys);
  }

  /** A wallet with new keys for the issuer `issuer` (by default the deployment's, `publicUrl`). */
  static async create(publicUrl: string, listenUrl: string, issuer = publicUrl): Promise<IssuanceWallet> {
    const endpoints = await discoverIssuer(walletFetch({ publicUrl, listenUrl }), issuer);
    return new IssuanceWallet(endpoints, publicUrl, listenUrl, { dpop: await newWalletKey(), holder: await newWalletKey() });
  }

  /** The same wallet (same keys, same issuer) talking to another instance or a restarted service. */
  at(listenUrl: string): IssuanceWallet {
    return new IssuanceWallet(this.endpoints, this.publicUrl, listenUrl, { dpop: this.dpopKey, holder: this.holderKey });
  }
}
