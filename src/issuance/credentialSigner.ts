// The issuance side's format contract: what a credential format signs (one type for every
// format), the signer each format implements (src/issuance/formats/<format>/signer.ts) and what
// the issuer metadata says of its configurations (formats/<format>/metadata.ts), keyed by the
// configuration's `format` in the registry (src/issuance/formats/registry.ts). The steps sign
// and describe through it and never import a format.
import type { JWK } from 'jose';
import type { Json } from '../eventstore/port.js';
import type { CredentialConfiguration, MsoMdocConfiguration, SdJwtVcConfiguration } from './configurations.js';
import type { IssuerSigningKey } from './signingKey.js';

/** Each credential format (a configuration's `format`) and its configuration. */
export interface ConfigurationOf {
  readonly 'dc+sd-jwt': SdJwtVcConfiguration;
  readonly mso_mdoc: MsoMdocConfiguration;
}
export type CredentialFormat = keyof ConfigurationOf;

/** A configuration without `format` is an SD-JWT VC, as before mdocs existed. */
export const formatOf = (configuration: CredentialConfiguration): CredentialFormat => configuration.format ?? 'dc+sd-jwt';

/** What a credential is signed from, whatever its format. */
export interface CredentialToSign<Configuration> {
  /** The credential issuer identifier (PUBLIC_URL). */
  readonly issuer: string;
  readonly configuration: Configuration;
  /** The offer's claims (for an mdoc: `{namespace: {element: value}}`), validated against the configuration. */
  readonly claims: { readonly [name: string]: Json | undefined };
  /** The key of the wallet's key proof, bound into the credential. */
  readonly holderJwk: JWK;
  readonly now: Date;
  readonly validitySeconds: number;
  /** The credential's Status List entry (draft-ietf-oauth-status-list); absent when its configuration opts out. */
  readonly status?: { readonly idx: number; readonly uri: string };
}

/** A format's signer: the credential, as it goes into the Credential Response's `credential`. */
export interface CredentialSigner<Format extends CredentialFormat> {
  sign(key: IssuerSigningKey, credential: CredentialToSign<ConfigurationOf[Format]>): Promise<string>;
}

/** One signer per format: a format without one does not compile. */
export type CredentialSigners = { readonly [Format in CredentialFormat]: CredentialSigner<Format> };

/** A format: its signer, and its configurations' entry in `credential_configurations_supported`. */
export interface CredentialFormatModule<Format extends CredentialFormat> extends CredentialSigner<Format> {
  metadata(configuration: ConfigurationOf[Format]): Readonly<Record<string, unknown>>;
}

/** The registry: one module per format. */
export type CredentialFormats = { readonly [Format in CredentialFormat]: CredentialFormatModule<Format> };

/** What the issuer metadata says of a configuration, by its format's module. */
export const describeCredential = <Format extends CredentialFormat>(formats: CredentialFormats, format: Format, configuration: ConfigurationOf[Format]): Readonly<Record<string, unknown>> =>
  formats[format].metadata(configuration);

/** Signs with the signer of the configuration's format. */
export const signCredential = <Format extends CredentialFormat>(
  signers: CredentialSigners,
  format: Format,
  key: IssuerSigningKey,
  credential: CredentialToSign<ConfigurationOf[Format]>,
): Promise<string> => signers[format].sign(key, credential);
