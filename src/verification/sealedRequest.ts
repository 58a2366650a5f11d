// What a session's `PresentationRequested.request` holds once opened: the integrator's query,
// transaction data and redirect, sealed at creation (createRequest/) and read by every later step.
import * as t from 'io-ts';
import { DcqlQuery } from './dcql.js';

export type SealedRequest = {
  readonly dcqlQuery: DcqlQuery;
  /** Each object as base64url JSON, exactly as sent to the wallet and hashed by it. */
  readonly transactionData: readonly string[];
  readonly redirectUri: string | null;
};

export const SealedRequest: t.Decoder<unknown, SealedRequest> = t.type({
  dcqlQuery: DcqlQuery,
  transactionData: t.readonlyArray(t.string),
  redirectUri: t.union([t.string, t.null]),
});
