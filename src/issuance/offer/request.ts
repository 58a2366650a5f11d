// The management API's offer request (POST /offers): the credential configuration, its claims
// (or none, with the authorization_code grant, until the authorization completes), an optional
// transaction code's shape, the grant, and the tenant's authentication page for that grant.
import * as t from 'io-ts';
import { CallbackUrl } from '../../config/callbacks.js';
import { NonEmptyString, withMessage } from '../../http/codecs.js';

/** The largest offer request body read. */
export const CREATE_OFFER_LIMIT = 64 * 1024;

export const TX_CODE_LENGTH = { min: 4, max: 16 } as const;

const TxCodeLength = withMessage(
  t.refinement(t.number, (n) => Number.isInteger(n) && n >= TX_CODE_LENGTH.min && n <= TX_CODE_LENGTH.max),
  `expected an integer ${TX_CODE_LENGTH.min}-${TX_CODE_LENGTH.max}`,
);

const TxCodeRequest = t.intersection([
  t.type({ input_mode: withMessage(t.keyof({ numeric: null, text: null }), 'expected "numeric" or "text"'), length: TxCodeLength }),
  t.partial({ description: withMessage(t.refinement(t.string, (s) => s.length <= 300), 'expected a string of at most 300 characters') }),
]);

export const CreateOfferBody = t.intersection([
  t.type({ credential_configuration_id: NonEmptyString, claims: t.unknown }),
  t.partial({
    tx_code: TxCodeRequest,
    grant: withMessage(t.keyof({ 'pre-authorized_code': null, authorization_code: null }), 'expected "pre-authorized_code" or "authorization_code"'),
    authentication_url: withMessage(CallbackUrl, 'expected an absolute http(s) URL without credentials or fragment'),
  }),
]);

/** The decoded body; the configuration's id need only be a string here. */
export type CreateOfferRequest = Omit<t.TypeOf<typeof CreateOfferBody>, 'credential_configuration_id'> & { readonly credential_configuration_id: string };
