// Terminal presentation events as the decider records them for a judged answer, on a session
// requested by `base.tenantId` whose request `answered.kid` was fetched with `answered.flowType`.
import type { DataKey } from '../../src/crypto/dataKeys.js';
import type { VerificationFailure } from '../../src/verification/verifiedCredential.js';
import type { VerifiedPresentation } from '../../src/verification/vpToken.js';
import { failProcessing, failVerification, fulfil, reject } from '../../src/verification/outcome.js';
import { presentation, type Command, type FlowType, type PresentationEvent, type PresentationTerminalEvent } from '../../streams/presentation.js';
import { givenWhen } from './decider.js';
import { rightOf } from './either.js';

interface Base {
  readonly state: string;
  readonly tenantId: string;
  readonly at: Date;
}

const byRequestUri = (base: Base) => ({ ...base, channel: 'request_uri' as const });

interface Answered {
  readonly kid: string;
  readonly flowType: FlowType;
}

const sealed = { alg: 'A256GCM' as const, iv: 'iv', ciphertext: 'sealed', tag: 'tag' };
const scenario = givenWhen(presentation);

const decided = (base: Base, answered: Answered, command: Command, expiresAt = new Date(base.at.getTime() + 60_000)): PresentationTerminalEvent => {
  const { state, tenantId } = base;
  const created = new Date(base.at.getTime() - 60_000).toISOString();
  const given: PresentationEvent[] = [
    { type: 'PresentationRequested', data: { state, tenantId, credentialQueryIds: ['pid'], transactionDataCount: 0, request: sealed, expiresAt: expiresAt.toISOString(), createdAt: created } },
    { type: 'PresentationRequestFetched', data: { ...answered, nonce: 'nonce', responseKey: sealed, fetchedAt: created } },
  ];
  const [event] = rightOf(scenario(given, command));
  if (!event || event.type === 'PresentationRequested' || event.type === 'PresentationRequestFetched') throw new Error('no terminal event decided');
  return event;
};

const ANY: Answered = { kid: 'k', flowType: 'cross-device' };

export const fulfilled = (base: Base, answered: Answered, verified: VerifiedPresentation, key: DataKey) => decided(base, answered, fulfil(byRequestUri(base), answered.kid, verified, key));
export const verificationFailed = (base: Base, answered: Answered, failure: VerificationFailure) => decided(base, answered, failVerification(byRequestUri(base), answered.kid, failure));
export const rejected = (base: Base, error: string) => decided(base, ANY, reject(byRequestUri(base), error));
export const processingFailed = (base: Base, errorDetails: string) => decided(base, ANY, failProcessing(byRequestUri(base), errorDetails));
export const expired = (base: Base) => decided(base, ANY, { type: 'Expire', data: { state: base.state, at: base.at.toISOString() } }, base.at);
