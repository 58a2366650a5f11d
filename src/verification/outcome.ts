// The five terminal events of a presentation and the Presented Credentials Event each carries
// for the callback subscriber, with the spec's field presence rules:
// - `responseCode`: same-device only, for FULFILLED and trust-enforcement VERIFICATION_FAILED;
// - `credentials` / `credentialsRaw`: FULFILLED only, sealed with the session's data key;
// - `errorDetails`: REJECTED, PROCESSING_ERROR and VERIFICATION_FAILED only.
import { randomBytes } from 'node:crypto';
import { presentationCallback, presentationExpired, purposes, type FlowType, type PresentationTerminalEvent } from '../../streams/presentation.js';
import type { DataKey } from '../crypto/dataKeys.js';
import type { Json } from '../eventstore/port.js';
import type { VerificationFailure } from './sdJwtVc.js';
import type { VerifiedPresentation } from './vpToken.js';

interface Base {
  readonly state: string;
  readonly tenantId: string;
  readonly at: Date;
}

/** Which fetched request the wallet answered. */
interface Answered {
  readonly kid: string;
  readonly flowType: FlowType;
}


/** The correlation token the wallet hands the browser in the same-device redirect. */
const newResponseCode = (): string => randomBytes(32).toString('base64url');

export const fulfilled = (
  base: Base,
  answered: Answered,
  verified: VerifiedPresentation,
  key: DataKey,
): PresentationTerminalEvent => {
  const responseCode = answered.flowType === 'same-device' ? newResponseCode() : null;
  const { trustListDigests, ...callbackFields } = verified;
  const value = key.seal(callbackFields as unknown as Json, purposes.credentials);
  return {
    type: 'PresentationFulfilled',
    data: {
      state: base.state,
      at: base.at.toISOString(),
      ...answered,
      responseCode,
      ...(trustListDigests ? { trustListDigests } : {}),
      callback: presentationCallback(
        base,
        'FULFILLED',
        responseCode === null ? {} : { responseCode },
        { ownerId: base.state, purpose: purposes.credentials, value },
      ),
    },
  };
};

export const verificationFailed = (base: Base, answered: Answered, failure: VerificationFailure): PresentationTerminalEvent => {
  // Only a trust-enforcement failure in same-device flow redirects the browser (spec, States).
  const responseCode = failure.trustEnforcement && answered.flowType === 'same-device' ? newResponseCode() : null;
  return {
    type: 'PresentationVerificationFailed',
    data: {
      state: base.state,
      at: base.at.toISOString(),
      ...answered,
      errorDetails: failure.reason,
      responseCode,
      ...(failure.trustListDigests ? { trustListDigests: failure.trustListDigests } : {}),
      callback: presentationCallback(base, 'VERIFICATION_FAILED', {
        errorDetails: failure.reason,
        ...(responseCode === null ? {} : { responseCode }),
      }),
    },
  };
};

export const rejected = (base: Base, error: string): PresentationTerminalEvent => ({
  type: 'PresentationRejected',
  data: { state: base.state, at: base.at.toISOString(), error, callback: presentationCallback(base, 'REJECTED', { errorDetails: error }) },
});

export const processingFailed = (base: Base, errorDetails: string): PresentationTerminalEvent => ({
  type: 'PresentationProcessingFailed',
  data: { state: base.state, at: base.at.toISOString(), errorDetails, callback: presentationCallback(base, 'PROCESSING_ERROR', { errorDetails }) },
});

export const expired = (base: Base): PresentationTerminalEvent => presentationExpired(base, base.at.toISOString());
