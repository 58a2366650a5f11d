// The one table from the issuance steps' errors answered as problems (RFC 9457): the management
// API's (offers, the integrator's answer to an authorization, the status of what was issued) and
// the served Status List Tokens'. A switch with no default:
// an error a step adds and this table leaves out does not compile.
import { conflict, invalidValues, notFound, preconditionFailed, problem, type Problem } from '../http/problem.js';
import type { AnswerError } from './authorizationAnswer/answerAuthorization.js';
import type { OfferRefused } from './offer/createOffer.js';
import type { SetStatusError } from './status/setCredentialStatus.js';
import type { StatusListNotFound } from './status/publication.js';

export type IssuanceProblem = OfferRefused | AnswerError | SetStatusError | StatusListNotFound;

export const unknownCredentialConfiguration = (id: string): Problem =>
  problem(
    422,
    '/problems/unknown_credential_configuration',
    'Unknown credential configuration',
    `No credential configuration "${id}" is configured.`,
    [{ location: 'body.credential_configuration_id', message: 'not a configured credential configuration id', value: id }],
  );

export const problemOf = (error: IssuanceProblem): Problem => {
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
    // The status of what was issued.
    case 'NothingIssued':
      return conflict('No credential with a status has been issued under this offer yet.');
    case 'RevocationIsFinal':
      return conflict('The credentials issued under this offer are revoked; revocation is final.');
    case 'PreconditionFailed':
      return preconditionFailed();
    // The served Status List Tokens (public).
    case 'StatusListNotFound':
      return notFound('No status list exists at this location.');
  }
};
