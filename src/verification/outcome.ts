// The five terminal events of a presentation: the outcome's facts, as src/callbacks/
// presentationCallback.ts translates them into the Presented Credentials Event:
// - `responseCode`: a fresh one same-device, for FULFILLED and trust-enforcement
//   VERIFICATION_FAILED only; null otherwise;
// - `presentedCredentials`: FULFILLED only, sealed with the session's data key;
// - `errorDetails` (`error` for REJECTED): REJECTED, PROCESSING_ERROR and VERIFICATION_FAILED only.
import { randomBytes } from 'node:crypto';
import { presentationExpired, purposes, type FlowType, type PresentationTerminalEvent } from '../../streams/presentation.js';
import type { DataKey } from '../crypto/dataKeys.js';
import type { Json } from '../eventstore/port.js';
import type { VerificationFailure } from './sdJwtVc.js';
import type { VerifiedPresentation } from './vpToken.js';

interface Base {
  readonly state: string;
  readonly tenantId: string;
  readonly at: Date;
}

/** What every outcome names: the session, its tenant and when it ended. */
const facts = (base: Base) => ({ state: base.state, tenantId: base.tenantId, at: base.at.toISOString() });

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
  const { trustListDigests, ...presented } = verified;
  return {
    type: 'PresentationFulfilled',
    data: {
      ...facts(base),
      ...answered,
      responseCode,
      presentedCredentials: key.seal(presented as unknown as Json, purposes.presentedCredentials),
      ...(trustListDigests ? { trustListDigests } : {}),
    },
  };
};

export const verificationFailed = (base: Base, answered: Answered, failure: VerificationFailure): PresentationTerminalEvent => {
  // Only a trust-enforcement failure in same-device flow redirects the browser (spec, States).
  const responseCode = failure.trustEnforcement && answered.flowType === 'same-device' ? newResponseCode() : null;
  return {
    type: 'PresentationVerificationFailed',
    data: {
      ...facts(base),
      ...answered,
      errorDetails: failure.reason,
      responseCode,
      ...(failure.trustListDigests ? { trustListDigests: failure.trustListDigests } : {}),
    },
  };
};

export const rejected = (base: Base, error: string): PresentationTerminalEvent => ({
  type: 'PresentationRejected',
  data: { ...facts(base), error },
});

export const processingFailed = (base: Base, errorDetails: string): PresentationTerminalEvent => ({
  type: 'PresentationProcessingFailed',
  data: { ...facts(base), errorDetails },
});

export const expired = (base: Base): PresentationTerminalEvent => presentationExpired(base, base.at.toISOString());
