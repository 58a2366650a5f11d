// What the Credential Issuer Metadata says of every configuration whatever its format (OpenID4VCI
// section 12.2.4, `credential_metadata`): its display, with `locale` and `name`, and its claims.
import type { CredentialConfiguration, Display } from './configurations.js';

/** OpenID4VCI display objects use `locale` and `name`. */
export const asLocaleDisplay = (display: readonly Display[]) =>
  display.map((d) => ({ name: d.name, locale: d.lang, ...(d.description === undefined ? {} : { description: d.description }) }));

export const credentialMetadata = (c: CredentialConfiguration) => ({
  display: asLocaleDisplay(c.display),
  claims: c.claims.map((claim) => ({ path: claim.path, mandatory: claim.mandatory, display: asLocaleDisplay(claim.display) })),
});
