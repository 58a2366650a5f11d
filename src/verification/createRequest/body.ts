// The body of `POST /oidc4vp` (connector specification, Endpoints; OpenID4VP 1.0 Appendix A for
// `"flow_type": "dc_api"`): its io-ts schema, and the rules between its members the schema cannot
// state (`validatePresentationBody`), each refusal a field error.
import * as t from 'io-ts';
import { DcApiProtocol } from '../../../streams/presentation.js';
import { NonEmptyString, withMessage } from '../../http/codecs.js';
import type { FieldError } from '../../http/problem.js';
import { DcqlQuery, dcqlProblems, nonEmptyArray, object, requiresHolderBinding } from '../dcql.js';
import { ANNEX_C_PROTOCOL, annexCQueryProblems } from '../dcApi/annexCRequest.js';

/** A transaction data object as the integrator sends it; further fields belong to its rulebook. */
export const TransactionData = t.type(
  { type: NonEmptyString, credential_ids: nonEmptyArray(NonEmptyString) },
  'TransactionData',
);

const RedirectUri = withMessage(
  t.refinement(t.string, (s) => {
    try {
      const url = new URL(s);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '' && !s.includes('#');
    } catch {
      return false;
    }
  }),
  'expected an absolute http(s) URL without a fragment',
);

/**
 * An origin as a browser serialises it (the string the wallet compares `expected_origins` with,
 * OpenID4VP 1.0 A.2): https, a host and perhaps a port, no path, query, fragment or user.
 */
const HttpsOrigin = withMessage(
  t.refinement(t.string, (s) => {
    try {
      const url = new URL(s);
      return url.protocol === 'https:' && url.origin === s;
    } catch {
      return false;
    }
  }),
  'expected an https origin without path, such as https://shop.example',
);

export interface ExpiryBounds {
  readonly defaultSeconds: number;
  readonly minSeconds: number;
  readonly maxSeconds: number;
}

export const createPresentationBody = (bounds: ExpiryBounds) =>
  object(
    { dcql_query: DcqlQuery },
    {
      redirect_uri: RedirectUri,
      transaction_data: nonEmptyArray(TransactionData),
      flow_type: withMessage(t.literal('dc_api'), 'expected dc_api (the other flow types are chosen by the wallet\'s request URI)'),
      expected_origins: nonEmptyArray(HttpsOrigin),
      dc_api_signed: t.boolean,
      dc_api_protocols: nonEmptyArray(withMessage(t.string, 'expected a string')),
      expires_in: withMessage(
        t.refinement(t.Int, (n) => n >= bounds.minSeconds && n <= bounds.maxSeconds),
        `expected an integer number of seconds from ${bounds.minSeconds} to ${bounds.maxSeconds}`,
      ),
    },
    'CreatePresentationRequest',
  );
export type CreatePresentationBody = t.TypeOf<ReturnType<typeof createPresentationBody>>;

/** Each transaction data object must name credential queries that can sign it: with holder binding. */
const transactionDataProblems = (body: CreatePresentationBody, location: string): FieldError[] =>
  (body.transaction_data ?? []).flatMap((item, i) =>
    item.credential_ids.flatMap((id, j): FieldError[] => {
      const query = body.dcql_query.credentials.find((c) => c.id === id);
      const at = `${location}[${i}].credential_ids[${j}]`;
      if (query === undefined) return [{ location: at, message: 'names no credential query of dcql_query', value: id }];
      // No profile says how an mdoc's device signature would cover transaction data: accepting it
      // would promise the relying party an authorization nothing checks.
      if (query.format === 'mso_mdoc') return [{ location: at, message: 'names an mso_mdoc credential query; no profile defines transaction data for mdocs', value: id }];
      if (!requiresHolderBinding(query)) {
        return [{ location: at, message: 'names a credential query without holder binding, which cannot sign transaction data', value: id }];
      }
      return [];
    }),
  );

/**
 * The DC API's members: `expected_origins` required with `"flow_type": "dc_api"`, no
 * `redirect_uri` with it (the page gets the answer, nobody is redirected), and none of them without it;
 * `dc_api_protocols` names each supported protocol once, and stands instead of `dc_api_signed`.
 * An mdoc claim's `intent_to_retain` is optional here as on any channel (OpenID4VP 1.0 B.2.4).
 */
const dcApiProblems = (body: CreatePresentationBody): FieldError[] => {
  if (body.flow_type !== 'dc_api') {
    return (['expected_origins', 'dc_api_signed', 'dc_api_protocols'] as const)
      .filter((name) => body[name] !== undefined)
      .map((name) => ({ location: `body.${name}`, message: 'is only for "flow_type": "dc_api"', value: body[name] }));
  }
  const problems: FieldError[] = [];
  if (body.expected_origins === undefined) problems.push({ location: 'body.expected_origins', message: 'is required with "flow_type": "dc_api"', value: undefined });
  if (body.redirect_uri !== undefined) problems.push({ location: 'body.redirect_uri', message: 'has no use with "flow_type": "dc_api": the page receives the answer', value: body.redirect_uri });
  if (body.dc_api_protocols !== undefined && body.dc_api_signed !== undefined) {
    problems.push({ location: 'body.dc_api_signed', message: 'is implied by dc_api_protocols; give one of them', value: body.dc_api_signed });
  }
  (body.dc_api_protocols ?? []).forEach((protocol, i) => {
    const location = `body.dc_api_protocols[${i}]`;
    if (!DcApiProtocol.is(protocol)) problems.push({ location, message: `expected one of ${Object.keys(DcApiProtocol.keys).join(', ')}`, value: protocol });
    else if (body.dc_api_protocols!.indexOf(protocol) !== i) problems.push({ location, message: 'names a protocol already named', value: protocol });
  });
  // ISO/IEC 18013-7 Annex C asks for mdocs only, each docType once.
  if (body.dc_api_protocols?.includes(ANNEX_C_PROTOCOL)) problems.push(...annexCQueryProblems(body.dcql_query, 'body.dcql_query'));
  return problems;
};

/** `trustListUrls`: the trusted lists a DCQL `etsi_tl` may name; undefined in static mode. */
export const validatePresentationBody = (body: CreatePresentationBody, trustListUrls?: ReadonlySet<string>): FieldError[] => [
  ...dcqlProblems(body.dcql_query, 'body.dcql_query', trustListUrls),
  ...transactionDataProblems(body, 'body.transaction_data'),
  ...dcApiProblems(body),
];

export const encodeTransactionData = (item: t.TypeOf<typeof TransactionData>): string =>
  Buffer.from(JSON.stringify(item), 'utf8').toString('base64url');

