// The wallet's issuance half (wallet/issuance.ts) as the tests drive it: made from the service's
// PUBLIC_URL and the address it really listens on (transport.ts).
import { IssuanceWallet as Wallet, type IssuanceKeys } from '../../../wallet/issuance.js';
import { newWalletKey } from '../../../wallet/keys.js';
import { walletFetch } from './transport.js';

export class IssuanceWallet extends Wallet {
  private constructor(publicUrl: string, listenUrl: string, keys: IssuanceKeys) {
    super(publicUrl, walletFetch({ publicUrl, listenUrl }), keys);
  }

  static async create(publicUrl: string, listenUrl: string): Promise<IssuanceWallet> {
    return new IssuanceWallet(publicUrl, listenUrl, { dpop: await newWalletKey(), holder: await newWalletKey() });
  }

  /** The same wallet (same keys) talking to another instance or a restarted service. */
  at(listenUrl: string): IssuanceWallet {
    return new IssuanceWallet(this.issuer, listenUrl, { dpop: this.dpopKey, holder: this.holderKey });
  }
}
