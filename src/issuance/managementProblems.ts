// The one table from the issuance management steps' errors (offers, the integrator's answer to an
// authorization) to the problems the management API answers (RFC 9457). A switch with no default:
// an error a step adds and this table leaves out does not compile.
import { conflict, invalidValues, notFound, problem, type Problem } from '../http/problem.js';
import type { AnswerError } from './authorizationAnswer/answerAuthorization.js';
import type { OfferRefused } from './offer/createOffer.js';

export type ManagementError = OfferRefused | AnswerError;

export const unknownCredentialConfiguration = (id: string): Problem =>
  problem(
    422,
    '/problems/unknown_credential_configuration',
    'Unknown credential configuration',
    `No credential configuration "${id}" is configured.`,
    [{ location: 'body.credential_configuration_id', message: 'not a configured credential configuration id', value: id }],
  );

export const problemOf = (error: ManagementError): Problem => {
  switch (error._tag) {
    // Creating an offer.
    case 'UnknownCredentialConfiguration':
      return unknownCredentialConfiguration(error.id);
    case 'NoAuthenticationUrl':
      return problem(
        422,
        '/problems/authentication_url_missing',
        'No authentication URL',
        'Offers with the authorization_code grant need an authentication_url, in the offer or configured for the tenant.',
        [{ location: 'body.authentication_url', message: 'required: the tenant has no authentication URL', value: null }],
      );
    case 'InvalidClaims':
    case 'ClaimsInvalid':
      return invalidValues(error.errors);
    case 'OfferNotFound':
      return notFound('No offer with this id exists for your tenant.');
    // Answering an authorization.
    case 'AuthorizationNotFound':
      return notFound('No authorization with this id exists for your tenant, or it has expired.');
    case 'ClaimsOrError':
      return invalidValues([{ location: 'body', message: 'send claims or error, not both', value: null }]);
    case 'ClaimsRequired':
      return invalidValues([{ location: 'body.claims', message: 'required: the offer was created without claims', value: null }]);
    case 'ClaimsDiffer':
      return conflict('The offer was created with other claims; complete it with the same claims or none.');
    case 'AuthorizationEnded':
      return conflict('This authorization was already completed or denied.');
    case 'OfferEnded':
      return problem(409, '/problems/offer_ended', 'Offer ended', 'The offer has ended; create a new one.');
    case 'OfferChanged':
      return conflict('The offer changed meanwhile; try again.');
  }
};
