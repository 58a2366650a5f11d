// How the wallet finds a credential issuer's endpoints: from the issuer's own metadata, never by
// guessing paths from its identifier. The Credential Issuer Metadata is fetched at the well-known
// URL with `/.well-known/openid-credential-issuer` inserted between the identifier's host and its
// path (OpenID4VCI 1.0 section 12.2.2), and its `credential_issuer` must be the identifier itself
// (section 12.2.3). The authorization server is the first of `authorization_servers`, or the
// issuer itself when that is absent (section 12.2.4); its metadata comes from RFC 8414's
// path-inserted `/.well-known/oauth-authorization-server`, with `issuer` checked the same way
// (RFC 8414 section 3.3). The token, PAR and authorization endpoints are the authorization
// server's; the credential and nonce endpoints the issuer's.
import { fetchJson, type Fetch } from './http.js';

export interface IssuerEndpoints {
  /** The Credential Issuer Identifier. */
  readonly credentialIssuer: string;
  /** Where its metadata was found, to read its configurations again. */
  readonly metadataUrl: string;
  readonly credentialEndpoint: string;
  readonly nonceEndpoint: string;
  /** The authorization server's issuer identifier (the audience of client attestation PoPs, the `iss` of its redirects). */
  readonly authorizationServer: string;
  readonly tokenEndpoint: string;
  readonly pushedAuthorizationRequestEndpoint?: string;
  readonly authorizationEndpoint?: string;
}

/** `identifier` with `/.well-known/{name}` inserted between its origin and its path (none for a path of `/`). */
export const wellKnownUrl = (identifier: string, name: string): string => {
  const url = new URL(identifier);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}/.well-known/${name}${path}`;
};

const stringAt = (document: Record<string, unknown>, member: string, where: string): string => {
  const value = document[member];
  if (typeof value !== 'string' || value === '') throw new Error(`${where} has no ${member}`);
  return value;
};

const documentAt = async (fetch: Fetch, url: string): Promise<Record<string, unknown>> => {
  const answer = await fetchJson<Record<string, unknown>>(fetch, url);
  if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
  return answer.body;
};

/** The endpoints the issuer's metadata (and its authorization server's) name; throws when either is missing or names another identifier. */
export const discoverIssuer = async (fetch: Fetch, credentialIssuer: string): Promise<IssuerEndpoints> => {
  const metadataUrl = wellKnownUrl(credentialIssuer, 'openid-credential-issuer');
  const metadata = await documentAt(fetch, metadataUrl);
  const named = stringAt(metadata, 'credential_issuer', metadataUrl);
  if (named !== credentialIssuer) throw new Error(`the metadata at ${metadataUrl} is ${named}'s, not ${credentialIssuer}'s`);
  const servers = metadata['authorization_servers'];
  const authorizationServer = Array.isArray(servers) && typeof servers[0] === 'string' ? servers[0] : credentialIssuer;
  const serverUrl = wellKnownUrl(authorizationServer, 'oauth-authorization-server');
  const server = await documentAt(fetch, serverUrl);
  const serverIssuer = stringAt(server, 'issuer', serverUrl);
  if (serverIssuer !== authorizationServer) throw new Error(`the metadata at ${serverUrl} is ${serverIssuer}'s, not ${authorizationServer}'s`);
  const par = server['pushed_authorization_request_endpoint'];
  const authorize = server['authorization_endpoint'];
  return {
    credentialIssuer,
    metadataUrl,
    credentialEndpoint: stringAt(metadata, 'credential_endpoint', metadataUrl),
    nonceEndpoint: stringAt(metadata, 'nonce_endpoint', metadataUrl),
    authorizationServer,
    tokenEndpoint: stringAt(server, 'token_endpoint', serverUrl),
    ...(typeof par === 'string' ? { pushedAuthorizationRequestEndpoint: par } : {}),
    ...(typeof authorize === 'string' ? { authorizationEndpoint: authorize } : {}),
  };
};
