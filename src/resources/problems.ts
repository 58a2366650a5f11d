// The resources feature's one table from what its use cases refuse to the problem+json the
// management API answers (the resource API specification, "Errors"). A switch without `default:`,
// so a new refusal left unmapped does not compile.
import { MAX_REVISION } from '../../streams/resource.js';
import { conflict, contentTooLarge, forbidden, HttpError, invalidRequest, invalidValues, notFound, preconditionFailed, problem, unprocessable, unsupportedMediaType, type FieldError } from '../http/problem.js';
import type { UploadRefused } from './blobUploads.js';
import type { TenantNotFound } from './didDocument.js';
import type { SendRefused } from './sendDidcommMessage.js';
import type { SupportRequestRefused } from './readSupportRequests.js';
import { refusalMessage } from '../didcomm/recipient.js';
import type { IdempotencyError } from './idempotency.js';
import type { SchemaExists } from './createSchema.js';
import type { UpdateError } from './update.js';
import type { CertificateRule, SigningKeyState } from '../../streams/signingKey.js';
import type { KindRefusal } from './kind.js';
import type { NotACredential } from './verifiableCredential.js';
import type { DevelopmentChainsOff } from './createSigningKey.js';
import type { ChainUnreadable } from './certifySigningKey.js';
import type { ConfigurationExists, ConfigurationRefused } from './createCredentialConfiguration.js';
import type { ConfigurationIdChanged } from './replaceCredentialConfiguration.js';
import type { TenantNotKnown } from './readSingleton.js';
import type { SettingsRefused } from './replaceSettings.js';
import type { RegistrationRefused } from './registerVerifier.js';
import type { ConfigurationProblem } from '../issuance/configurations.js';

/** The blob a file or credential is made from is not an uploaded, unused blob of the tenant: 404. */
export type BlobNotFound = { readonly _tag: 'BlobNotFound' };
/** The draft a credential names is not the tenant's: 404. */
export type DraftNotFound = { readonly _tag: 'DraftNotFound' };
/** A live file of the tenant has the same content: 409. */
export type SameContent = { readonly _tag: 'SameContent' };

/**
 * The credential ids a presentation names that are no live credential of the tenant
 * (`CredentialsMissing`: 404), or whose content was erased (`CredentialContentGone`: 410), each
 * located in the body.
 */
export type CredentialsRefused = { readonly _tag: 'CredentialsMissing' | 'CredentialContentGone'; readonly refused: readonly FieldError[] };

/** Why a draft may not be created with the schema it names: 400. */
export type SchemaRefused = { readonly _tag: 'SchemaChoice' } | { readonly _tag: 'UnpublishedMetaSchema' };

/** Each rule an uploaded certificate chain must meet (PUT /signing-keys/{id}/certificate), as the 400 names it. */
const CERTIFICATE_RULES: { readonly [R in CertificateRule]: string } = {
  leaf_key: 'leaf_key: the leaf certificate does not hold this signing key',
  chain: 'chain: each certificate must be signed by the next one (leaf first)',
  not_yet_valid: 'not_yet_valid: the leaf certificate is not valid yet (notBefore is in the future)',
  expired: 'expired: the leaf certificate has expired (notAfter is past)',
  issuer_name: "issuer_name: the leaf certificate names the tenant's credential issuer in no subjectAltName (a URI equal to it, or a dNSName equal to its host)",
};

/** Why a key in a state refuses an operation (409). */
const SIGNING_KEY_STATE_CONFLICTS: { readonly [O in 'certify' | 'activate' | 'delete']: Partial<Record<SigningKeyState, string>> } = {
  activate: {
    pending: 'it has no certificate yet',
    active: 'it is the active key already',
    retired: 'a retired key never becomes active again',
    destroyed: "its material was destroyed with the tenant's data",
  },
  certify: { retired: 'a retired key takes no certificate', destroyed: "its material was destroyed with the tenant's data" },
  delete: { active: 'the active key is not deleted; activate another key of its role first' },
};

export const SAME_CONTENT = 'A live file with the same content (digest_multibase) exists.';

/** Every refusal of the resources feature's use cases. */
export type ResourcesError =
  | UpdateError<KindRefusal>
  | IdempotencyError
  | SchemaExists
  | BlobNotFound
  | DraftNotFound
  | SameContent
  | NotACredential
  | SchemaRefused
  | CredentialsRefused
  | UploadRefused
  | TenantNotFound
  | SendRefused
  | SupportRequestRefused
  | DevelopmentChainsOff
  | ChainUnreadable
  | ConfigurationRefused
  | ConfigurationExists
  | ConfigurationIdChanged
  | TenantNotKnown
  | SettingsRefused
  | RegistrationRefused;

/** Why an uploaded chain cannot be read at all, as the 400 names it. */
const CHAIN_UNREADABLE: { readonly [R in ChainUnreadable['reason']]: string } = {
  not_pem: 'not a PEM certificate chain (CERTIFICATE blocks, leaf first)',
  empty: 'the chain holds no certificate',
};

/** A credential configuration's problem, located in the request's `data`. */
const configurationField = (problem: ConfigurationProblem): FieldError => ({
  location: problem.location === '' ? 'body.data' : problem.location.startsWith('[') ? `body.data${problem.location}` : `body.data.${problem.location}`,
  message: problem.message,
  value: undefined,
});

/** A 400 whose detail is its one field's message. */
const fieldProblem = (location: string, message: string): HttpError => new HttpError(invalidRequest(message, [{ location, message, value: undefined }]));

export const problemOf = (error: ResourcesError): HttpError => {
  switch (error._tag) {
    case 'NotFound':
      return new HttpError(notFound('No resource of this kind has this id.'));
    case 'PreconditionFailed':
      return new HttpError(preconditionFailed());
    case 'KindConflict':
      return new HttpError(conflict(error.detail));
    case 'Conflict':
      return new HttpError(
        conflict(
          {
            deleted: 'The resource is deleted; restore it first.',
            not_deleted: 'The resource is not deleted.',
            revision_limit: `The resource has reached the last revision (${MAX_REVISION}).`,
            frozen: 'The resource is published and takes no more changes.',
          }[error.reason],
        ),
      );
    case 'IdempotencyKeyMalformed':
      return new HttpError(
        invalidRequest('Idempotency-Key must be 32-256 characters of a-z, A-Z, 0-9 and -.', [
          { location: 'header.idempotency-key', message: 'expected [a-zA-Z0-9-]{32,256}', value: error.key },
        ]),
      );
    case 'IdempotencyKeyReused':
      return new HttpError(unprocessable('This Idempotency-Key was used for a different request.', [{ location: 'header.idempotency-key', message: 'used for a different request', value: undefined }]));
    case 'BlobNotFound':
      return new HttpError(notFound('No uploaded, unused blob has this blob_id.'));
    case 'DraftNotFound':
      return new HttpError(notFound('No draft of this tenant has this draft_id.'));
    case 'SameContent':
      return new HttpError(conflict(SAME_CONTENT));
    case 'NotJson':
      return new HttpError(invalidRequest(`The blob is ${error.reason}.`, [{ location: 'blob', message: `expected a verifiable credential in JSON; the blob is ${error.reason}`, value: undefined }]));
    case 'InvalidCredential':
      return new HttpError(invalidValues(error.errors));
    case 'SchemaChoice':
      return fieldProblem('body.data', 'exactly one of schema or meta_schema is required');
    case 'UnpublishedMetaSchema':
      return fieldProblem('body.data.meta_schema', 'not the URL of a published schema of this tenant');
    case 'SchemaExists':
      return new HttpError(conflict('A schema with this slug and version exists.'));
    case 'CredentialsMissing':
      return new HttpError(problem(404, '/problems/not-found', 'Not found', 'A referenced credential does not exist in this tenant.', error.refused));
    case 'CredentialContentGone':
      return new HttpError(problem(410, '/problems/content-gone', 'Content gone', "A referenced credential's content was erased.", error.refused));
    case 'RecipientRefused':
      return new HttpError(invalidValues([{ location: 'body.data.to', message: refusalMessage(error.refused), value: undefined }]));
    case 'ReferencesMissing':
      return new HttpError(problem(404, '/problems/not-found', 'Not found', 'A referenced resource does not exist in this tenant.', error.missing));
    case 'SupportRequestNotFound':
      return new HttpError(notFound('No support request of this tenant has this id.'));
    case 'NoExport':
      return new HttpError(notFound('This support request has no export: only a DATA_DUMP request has one, once the operator made it.'));
    case 'ExportGone':
      return new HttpError(problem(410, '/problems/export-gone', 'Export gone', 'The export archive was deleted at the end of its retention time; file a new DATA_DUMP request.'));
    case 'TenantNotFound':
      return new HttpError(notFound());
    case 'UploadUrlInvalid':
      return new HttpError(forbidden('The upload URL is expired or not valid.'));
    case 'UploadNotRequested':
      return new HttpError(notFound());
    case 'UploadedAlready':
      return new HttpError(conflict('This blob has been uploaded already.'));
    case 'ContentEncodingUnsupported':
      return new HttpError(unsupportedMediaType('Content-Encoding is not supported.'));
    case 'BlobTooLarge':
      // The rest of the body is not read: the connection cannot carry another request.
      return new HttpError(contentTooLarge(error.maxBytes), { Connection: 'close' });
    case 'CertificateRefused':
      return fieldProblem('body.chain', CERTIFICATE_RULES[error.rule]);
    case 'SigningKeyState':
      return new HttpError(conflict(`The key is ${error.state}: ${SIGNING_KEY_STATE_CONFLICTS[error.operation][error.state] ?? 'the change is not allowed'}.`));
    case 'DevelopmentChainsOff':
      return new HttpError(forbidden('This deployment makes no development chains (ALLOW_DEVELOPMENT_CHAINS=false): certify the key with PUT /signing-keys/{id}/certificate.'));
    case 'ChainUnreadable':
      return fieldProblem('body.chain', CHAIN_UNREADABLE[error.reason]);
    case 'ConfigurationRefused':
      return new HttpError(invalidValues(error.problems.map(configurationField)));
    case 'ConfigurationExists':
      return new HttpError(
        conflict(
          error.deleted
            ? `The tenant's credential configuration "${error.id}" is deleted; restore it (POST /credential-configurations/{id}/restore) to use the id again.`
            : `The tenant has a credential configuration "${error.id}"; change it with PUT /credential-configurations/{id}.`,
        ),
      );
    case 'ConfigurationIdChanged':
      return new HttpError(invalidValues([{ location: 'body.data.id', message: 'the id of a configuration cannot change (it names the resource)', value: error.id }]));
    case 'TenantNotKnown':
      return new HttpError(notFound('The tenant is not known yet.'));
    case 'SettingsRefused': {
      // Values are not echoed: the callback secret is one of them.
      const { problems } = error;
      const errors: FieldError[] = problems.map((p) => ({ location: p.member === '(body)' ? 'body' : `body.${p.member}`, message: p.message, value: undefined }));
      const detail = problems.length === 1 ? `${problems[0]!.member}: ${problems[0]!.message}` : problems.map((p) => p.member).join(', ');
      return new HttpError(invalidRequest(`Invalid settings: ${detail}.`, errors));
    }
    case 'RegistrationRefused':
      return new HttpError(invalidRequest(`${error.member}: ${error.message}`, [{ location: `body.${error.member}`, message: error.message, value: undefined }]));
    case 'IdempotencyKeyInProgress':
      return new HttpError(conflict('A request with this Idempotency-Key is still being processed; retry later.'));
  }
};
