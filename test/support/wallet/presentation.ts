// The wallet's presentation half (wallet/presentation.ts) as the tests drive it: the calls that
// reach the service take the test's endpoints (transport.ts).
import * as wallet from '../../../wallet/presentation.js';
import { walletFetch, type WalletEndpoints } from './transport.js';

export const fetchAuthorizationRequest = (endpoints: WalletEndpoints, uri: string, options?: Parameters<typeof wallet.fetchAuthorizationRequest>[2]) =>
  wallet.fetchAuthorizationRequest(walletFetch(endpoints), uri, options);

export const postResponse = (endpoints: WalletEndpoints, request: Pick<wallet.AuthorizationRequest, 'responseUri'>, form: Record<string, string>) =>
  wallet.postResponse(walletFetch(endpoints), request, form);

export const answer = (
  endpoints: WalletEndpoints,
  request: wallet.AuthorizationRequest,
  holdings: Readonly<Record<string, wallet.Holding>>,
  options?: wallet.EncryptOptions,
) => wallet.answer(walletFetch(endpoints), request, holdings, options);
