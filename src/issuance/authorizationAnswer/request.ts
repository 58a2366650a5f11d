// What the integrator's authentication page answers at POST /authorizations/{id}/complete: either
// the claims (or nothing, when the offer has them) or a denial (`access_denied`, RFC 6749 section
// 4.1.2.1), with an optional description for the wallet.
import * as t from 'io-ts';
import { withMessage } from '../../http/codecs.js';

/** The largest answer body read. */
export const ANSWER_LIMIT = 64 * 1024;

export const CompleteBody = t.partial({
  claims: t.unknown,
  error: withMessage(t.literal('access_denied'), 'expected "access_denied"'),
  error_description: withMessage(t.refinement(t.string, (s) => s.length <= 300), 'expected a string of at most 300 characters'),
});
export type CompleteBody = t.TypeOf<typeof CompleteBody>;
