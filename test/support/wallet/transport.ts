// How the tests' wallet (the shipped one, wallet/) reaches the service: URIs name PUBLIC_URL, the
// request goes to where that URL really listens in the test, and every answer is checked against
// the OpenAPI document.
import type { Fetch } from '../../../wallet/http.js';
import { documentedFetch } from '../openapi.js';

export interface WalletEndpoints {
  /** The connector's PUBLIC_URL, as it appears in URIs. */
  readonly publicUrl: string;
  /** Where that public URL really listens in the test. */
  readonly listenUrl: string;
}

export const walletFetch =
  (endpoints: WalletEndpoints): Fetch =>
  (url, init) => {
    if (!url.startsWith(`${endpoints.publicUrl}/`)) throw new Error(`wallet: ${url} is not under ${endpoints.publicUrl}`);
    return documentedFetch('public')(endpoints.listenUrl + url.slice(endpoints.publicUrl.length), init);
  };
