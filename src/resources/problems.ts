// The resources feature's one table from what its use cases refuse to the problem+json the
// management API answers (the resource API specification, "Errors"). A switch without `default:`,
// so a new refusal left unmapped does not compile.
import { MAX_REVISION } from '../../streams/resource.js';
import { conflict, HttpError, invalidRequest, notFound, preconditionFailed, unprocessable } from '../http/problem.js';
import type { IdempotencyError } from './idempotency.js';
import type { SchemaExists } from './createSchema.js';
import type { UpdateError } from './update.js';

/** Every refusal of the resources feature's use cases. */
export type ResourcesError = UpdateError | IdempotencyError | SchemaExists;

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
    case 'SchemaExists':
      return new HttpError(conflict('A schema with this slug and version exists.'));
    case 'IdempotencyKeyInProgress':
      return new HttpError(conflict('A request with this Idempotency-Key is still being processed; retry later.'));
  }
};
