// `keys generate` and `keys list`: the connector's keys in a PKCS#11 token (docs/key-management.md),
// with the service's PKCS11_* variables. A key is made inside the token (sensitive, not
// extractable) and never leaves it: for a signing role, `--csr` writes a PKCS#10 request signed
// by the token key for a real CA, `--dev-chain` a development chain (leaf first, PEM) whose leaf
// certifies it. No key material is printed, and the PIN appears nowhere.
import { webcrypto } from 'node:crypto';
type CryptoKey = webcrypto.CryptoKey;
import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import type { JWK } from 'jose';
import { tokenOptions } from '../src/app/keyStore.js';
import { loadTokenSettings } from '../src/config/config.js';
import { certificatesToPem, ECDSA_SHA256, x509HashClientId } from '../src/crypto/certificates.js';
import { DEFAULT_CERTIFICATE_COUNTRY, generateChainForPublicKey } from '../src/crypto/signingIdentity.js';
import { ecPublicJwk, generateKey, KEY_ROLES, labelTaken, listKeys, tokenSigner, type KeyDescription, type KeyRole } from '../src/crypto/pkcs11/keys.js';
import { openToken, TokenProblem, type Token, type TokenOptions } from '../src/crypto/pkcs11/token.js';
import type { EcSigner } from '../src/crypto/signer.js';
import { x509 } from '../src/crypto/x509.js';
import { action, DONE, FAILED, REFUSED, withSettings, type ExitCode } from './action.js';
import { JSON_OPTION, printListing, printRecord, type JsonOption } from './output.js';

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

export interface GenerateKeyOptions {
  readonly role: KeyRole;
  readonly label: string;
  /** Where to write a PKCS#10 CSR signed by the new key (signing roles). */
  readonly csr?: string | undefined;
  /** Where to write a development chain for the new key (signing roles). */
  readonly devChain?: string | undefined;
  /** CN and DNS subjectAltName of the CSR and the development leaf. */
  readonly commonName: string;
  readonly country: string;
}

export interface GeneratedKey {
  readonly label: string;
  readonly role: KeyRole;
  readonly type: KeyDescription['type'];
  readonly csr?: string;
  readonly dev_chain?: string;
  /** The development leaf's `x509_hash:` client identifier (access role). */
  readonly client_id?: string;
}

/** Why a key was not made: the label is taken, or an option does not fit the role. */
export class KeyRefused extends Error {}

/** WebCrypto as @peculiar/x509 uses it to sign a CSR, with the signature made by `signer`. */
const signingCrypto = (signer: EcSigner): webcrypto.Crypto =>
  ({
    getRandomValues: webcrypto.getRandomValues.bind(webcrypto),
    subtle: {
      exportKey: (format: 'spki', key: CryptoKey) => webcrypto.subtle.exportKey(format, key),
      sign: async (_algorithm: unknown, _key: unknown, data: ArrayBuffer | ArrayBufferView) =>
        new Uint8Array(await signer.sign(ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data))).buffer,
    },
  }) as unknown as webcrypto.Crypto;

const publicCryptoKey = (jwk: JWK): Promise<CryptoKey> => webcrypto.subtle.importKey('jwk', jwk, EC_P256, true, ['verify']) as Promise<CryptoKey>;

const csrFor = async (signer: EcSigner, commonName: string, country: string): Promise<x509.Pkcs10CertificateRequest> => {
  const publicKey = await publicCryptoKey(signer.publicJwk);
  // Only its algorithm is read: the signature comes from the token through signingCrypto.
  const privateKey = { algorithm: EC_P256, type: 'private' } as unknown as CryptoKey;
  return x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: `C=${country}, CN=${commonName}`,
      keys: { publicKey, privateKey },
      signingAlgorithm: ECDSA_SHA256,
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: commonName }])],
    },
    signingCrypto(signer),
  );
};

const withToken = async <T>(options: TokenOptions, body: (token: Token) => Promise<T>): Promise<T> => {
  const token = openToken(options);
  try {
    return await body(token);
  } finally {
    token.close();
  }
};

/** Makes the key in the token and writes the files asked for; KeyRefused when the label is taken. */
export const generateTokenKey = (options: TokenOptions, key: GenerateKeyOptions): Promise<GeneratedKey> =>
  withToken(options, async (token) => {
    if (key.role === 'kek' && (key.csr !== undefined || key.devChain !== undefined)) throw new KeyRefused('--csr and --dev-chain are for the signing roles (access, issuer), not kek');
    const publicJwk = await token.withSession(async (session) => {
      if (labelTaken(token, session, key.label)) return 'taken' as const;
      generateKey(token, session, key.role, key.label);
      return key.role === 'kek' ? undefined : ecPublicJwk(token, session, key.label);
    });
    if (publicJwk === 'taken') throw new KeyRefused(`the token already holds an object labelled ${JSON.stringify(key.label)}; nothing was made`);
    if (key.role === 'kek') return { label: key.label, role: key.role, type: 'aes-256' };
    if (!publicJwk) throw new Error('the new key pair has no readable P-256 public key');
    const result: { -readonly [K in keyof GeneratedKey]: GeneratedKey[K] } = { label: key.label, role: key.role, type: 'ec-p256-private' };
    if (key.csr !== undefined) {
      const csr = await csrFor(tokenSigner(token, key.label, publicJwk), key.commonName, key.country);
      await writeFile(key.csr, `${csr.toString('pem')}\n`, { flag: 'wx', mode: 0o644 });
      result.csr = key.csr;
    }
    if (key.devChain !== undefined) {
      const chain = await generateChainForPublicKey(key.commonName, [{ type: 'dns', value: key.commonName }], await publicCryptoKey(publicJwk), key.country);
      await writeFile(key.devChain, certificatesToPem(chain), { flag: 'wx', mode: 0o644 });
      result.dev_chain = key.devChain;
      if (key.role === 'access') result.client_id = x509HashClientId(chain[0]!);
    }
    return result;
  });

/** The token's keys by label, type and role; never key material. */
export const listTokenKeys = (options: TokenOptions): Promise<KeyDescription[]> =>
  withToken(options, (token) => token.withSession(async (session) => listKeys(token, session)));

const roleArgument = (value: string): KeyRole => {
  if (!(KEY_ROLES as readonly string[]).includes(value)) throw new InvalidArgumentError(`choose from ${KEY_ROLES.join(', ')}`);
  return value as KeyRole;
};

/**
 * Runs `body` with the configured token; a token problem is one line on stderr. Only the PKCS11_*
 * variables are read: the service's environment may name certificates these keys are made for.
 */
const withTokenOptions = (body: (options: TokenOptions) => Promise<ExitCode>): Promise<ExitCode> =>
  withSettings(loadTokenSettings, async (config) => {
    try {
      return await body(await tokenOptions(config));
    } catch (err) {
      if (err instanceof TokenProblem) {
        process.stderr.write(`keys: ${err.message}\n`);
        return FAILED;
      }
      if (err instanceof KeyRefused) {
        process.stderr.write(`keys: ${err.message}\n`);
        return REFUSED;
      }
      throw err;
    }
  });

export const registerKeys = (program: Command): void => {
  const keys = program.command('keys').description('the keys in a PKCS#11 token (PKCS11_MODULE, PKCS11_TOKEN_LABEL or PKCS11_SLOT, PKCS11_PIN or PKCS11_PIN_FILE)');

  keys
    .command('generate')
    .description('makes a key in the token (sensitive, not extractable): P-256 for access and issuer, AES-256 for kek; exit 2 if the label is taken')
    .requiredOption('--role <role>', `access, issuer or kek`, roleArgument)
    .requiredOption('--label <label>', 'the key\'s label (ACCESS_KEY_LABEL, ISSUER_KEY_LABEL or KEK_LABEL)')
    .option('--csr <file>', 'write a PKCS#10 certificate signing request signed by the new key (signing roles)')
    .option('--dev-chain <file>', 'write a development chain, leaf first (PEM), whose leaf certifies the new key (signing roles)')
    .option('--cn <name>', 'CN and DNS subjectAltName of the CSR and the development leaf', 'localhost')
    .option('--country <code>', 'countryName (C), ISO 3166-1 alpha-2', DEFAULT_CERTIFICATE_COUNTRY)
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption & { role: KeyRole; label: string; csr?: string; devChain?: string; cn: string; country: string }) =>
        withTokenOptions(async (token) => {
          const made = await generateTokenKey(token, { role: options.role, label: options.label, csr: options.csr, devChain: options.devChain, commonName: options.cn, country: options.country });
          printRecord(options, made, [
            ['label', made.label],
            ['role', made.role],
            ['type', made.type],
            ...(made.csr ? [['csr', made.csr] as const] : []),
            ...(made.dev_chain ? [['dev_chain', made.dev_chain] as const] : []),
            ...(made.client_id ? [['client_id', made.client_id] as const] : []),
          ]);
          return DONE;
        }),
      ),
    );

  keys
    .command('list')
    .description("the token's keys: label, type and role (no key material)")
    .option(...JSON_OPTION)
    .action(
      action((options: JsonOption) =>
        withTokenOptions(async (token) => {
          printListing(options, await listTokenKeys(token), [
            { header: 'LABEL', cell: (k) => k.label },
            { header: 'TYPE', cell: (k) => k.type },
            { header: 'ROLE', cell: (k) => k.role ?? '-' },
          ]);
          return DONE;
        }),
      ),
    );
};
