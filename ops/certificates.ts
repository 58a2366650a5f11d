// `certificates generate`: a CA and a leaf for an operator who has no PKI yet (a test
// environment, a first deployment). Production access and issuer certificates should come from a
// real CA; these files have the same layout, so swapping them later changes nothing else.
import type { Command } from 'commander';
import { x509HashClientId } from '../src/crypto/certificates.js';
import { DEFAULT_CERTIFICATE_COUNTRY, generateChain, writeChainFiles } from '../src/crypto/signingIdentity.js';
import { action, DONE, FAILED } from './action.js';
import { JSON_OPTION, printRecord, type JsonOption } from './output.js';

export interface GeneratedFiles {
  readonly dir: string;
  readonly files: readonly string[];
  /** The leaf's `x509_hash:` client identifier. */
  readonly client_id: string;
  /** The CA certificate, DER in base64: what a verifier of this leaf trusts. */
  readonly trust_anchor: string;
}

/** Writes the four files into `dir`; undefined when one of them already exists (nothing is overwritten). */
export const generateCertificateFiles = async (dir: string, commonName: string, country?: string): Promise<GeneratedFiles | undefined> => {
  const chain = await generateChain(commonName, [{ type: 'dns', value: commonName }], country);
  try {
    await writeChainFiles(dir, chain, { includeCaKey: true });
  } catch (err) {
    // Never overwrite keys: an operator may be one command away from losing a CA.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw err;
  }
  return {
    dir,
    files: ['ca.pem', 'ca-key.pem', 'certificate.pem', 'key.pem'],
    client_id: x509HashClientId(chain.leaf.certificate),
    trust_anchor: Buffer.from(chain.ca.certificate.rawData).toString('base64'),
  };
};

export const registerCertificates = (program: Command): void => {
  const certificates = program.command('certificates').description('certificates for a first deployment (needs no store)');

  certificates
    .command('generate')
    .description("writes a CA (ca.pem, ca-key.pem) and a leaf signed by it (certificate.pem, key.pem), each mode 0600; exit 1 if a file exists")
    .requiredOption('--out <dir>', 'the directory to write into (created if missing)')
    .option('--cn <name>', "the leaf's CN and DNS subjectAltName", 'localhost')
    .option('--country <code>', 'the countryName (C) of both certificates, ISO 3166-1 alpha-2 (ISO 18013-5 wants one for mdoc signers)', DEFAULT_CERTIFICATE_COUNTRY)
    .option(...JSON_OPTION)
    .action(
      action(async (options: JsonOption & { out: string; cn: string; country: string }) => {
        const generated = await generateCertificateFiles(options.out, options.cn, options.country);
        if (!generated) {
          process.stderr.write(`certificates generate: a file already exists in ${options.out}; choose an empty --out\n`);
          return FAILED;
        }
        printRecord(options, generated, [
          ['dir', generated.dir],
          ['files', generated.files.join(', ')],
          ['client_id', generated.client_id],
          ['trust_anchor', generated.trust_anchor],
        ]);
        return DONE;
      }),
    );
};
