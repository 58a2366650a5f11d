// Which appended events start or end a flow, for `connector_flows_created_total` and
// `connector_flows_ended_total`. Typed over each stream's event union, so a new event type
// does not compile until it says what it means here.
import * as offers from '../../streams/offer.js';
import * as presentations from '../../streams/presentation.js';
import type { Flow } from './metrics.js';

// Per event type: `created`, the terminal status it ends the flow with, or null for a step in between.
const presentationLifecycle = {
  PresentationRequested: 'created',
  PresentationRequestFetched: null,
  PresentationFulfilled: 'FULFILLED',
  PresentationRejected: 'REJECTED',
  PresentationExpired: 'EXPIRED',
  PresentationProcessingFailed: 'PROCESSING_ERROR',
  PresentationVerificationFailed: 'VERIFICATION_FAILED',
} as const satisfies { readonly [T in presentations.PresentationEvent['type']]: 'created' | presentations.PresentationStatus | null };

const offerLifecycle = {
  OfferCreated: 'created',
  TxCodeRejected: null,
  PreAuthorizedCodeRedeemed: null,
  CredentialIssued: 'ISSUED',
  OfferFailed: 'FAILED',
  OfferExpired: 'EXPIRED',
  ClaimsPurged: null,
  AuthorizationRequestPushed: null,
  AuthorizationStarted: null,
  AuthorizationCompleted: null,
  AuthorizationDenied: null,
  AuthorizationCodeRedeemed: null,
  AuthorizationCodeReplayed: null,
} as const satisfies { readonly [T in offers.OfferEvent['type']]: 'created' | offers.OfferStatus | null };

const flows: readonly { readonly prefix: string; readonly flow: Flow; readonly lifecycle: Readonly<Record<string, string | null>> }[] = [
  { prefix: `${presentations.category}-`, flow: 'verification', lifecycle: presentationLifecycle },
  { prefix: `${offers.category}-`, flow: 'issuance', lifecycle: offerLifecycle },
];

export interface FlowStep {
  readonly flow: Flow;
  /** `created` or a terminal status. */
  readonly step: string;
}

/** What an event of `type` appended to `streamId` does to its flow, if anything. */
export const flowStepOf = (streamId: string, type: string): FlowStep | undefined => {
  const kind = flows.find((f) => streamId.startsWith(f.prefix));
  const step = kind && Object.hasOwn(kind.lifecycle, type) ? kind.lifecycle[type] : null;
  return kind && step ? { flow: kind.flow, step } : undefined;
};
