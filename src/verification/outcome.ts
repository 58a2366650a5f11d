// The verifier's judgement of a wallet's answer as the presentation decider's outcome commands
// (streams/presentation.ts decides which terminal event each records and what it holds):
// - a fresh `responseCode` comes with FULFILLED and VERIFICATION_FAILED; the decider keeps it
//   only where the browser is sent back;
// - `presentedCredentials`: FULFILLED only, sealed with the session's data key;
// - `errorDetails` (`error` for REJECTED): REJECTED, PROCESSING_ERROR and VERIFICATION_FAILED only.
import { randomBytes } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { type Channel, type OutcomeCommand } from '../../streams/presentation.js';
import { PresentedCredentials, purposes } from '../../streams/presentationSealed.js';
import { sealFor, type DataKey } from '../crypto/dataKeys.js';
import type { VerificationFailure } from './verifiedCredential.js';
import type { VerifiedPresentation } from './vpToken.js';

/** The session the wallet answered, when, and by which channel. */
export interface Answer {
  readonly state: string;
  readonly at: Date;
  readonly channel: Channel;
}

const step = (answer: Answer) => ({ state: answer.state, at: answer.at.toISOString(), channel: answer.channel });

/** The correlation token the wallet hands the browser in the same-device redirect. */
const newResponseCode = (): string => randomBytes(32).toString('base64url');

/**
 * The verified credentials as JSON, as the callback carries them (an mdoc's claims may hold dates
 * or bytes: JSON writes them as the sealing always has).
 */
const presentedCredentials = (presented: Omit<VerifiedPresentation, 'trustListDigests'>): PresentedCredentials => {
  const json = PresentedCredentials.decode(JSON.parse(JSON.stringify(presented)));
  if (isLeft(json)) throw new Error('verified credentials are not JSON objects keyed by credential query id');
  return json.right;
};

/** `kid` names the fetched request the wallet answered. */
export const fulfil = (answer: Answer, kid: string, verified: VerifiedPresentation, key: DataKey): OutcomeCommand => {
  const { trustListDigests, ...presented } = verified;
  return {
    type: 'Fulfil',
    data: {
      ...step(answer),
      kid,
      responseCode: newResponseCode(),
      presentedCredentials: sealFor(key, purposes.presentedCredentials, presentedCredentials(presented)),
      ...(trustListDigests ? { trustListDigests } : {}),
    },
  };
};

export const failVerification = (answer: Answer, kid: string, failure: VerificationFailure): OutcomeCommand => ({
  type: 'FailVerification',
  data: {
    ...step(answer),
    kid,
    responseCode: newResponseCode(),
    errorDetails: failure.reason,
    trustEnforcement: failure.trustEnforcement,
    ...(failure.trustListDigests ? { trustListDigests: failure.trustListDigests } : {}),
  },
});

export const reject = (answer: Answer, error: string): OutcomeCommand => ({ type: 'Reject', data: { ...step(answer), error } });

export const failProcessing = (answer: Answer, errorDetails: string): OutcomeCommand => ({ type: 'FailProcessing', data: { ...step(answer), errorDetails } });
