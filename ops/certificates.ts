// `certificates generate`: a CA and a leaf for an operator who has no PKI yet (a test
// environment, a first deployment). Production access and issuer certificates should come from a
// real CA; these files have the same layout, so swapping them later changes nothing else.
import { parseArgs } from 'node:util';
import { generateChain, writeChainFiles, x509HashClientId } from '../src/crypto/certificates.js';

export const CERTIFICATES_USAGE = `  certificates generate --out DIR [--cn NAME]
      writes a CA (ca.pem, ca-key.pem) and a leaf signed by it (certificate.pem, key.pem) into DIR,
      each mode 0600; NAME (default localhost) is the leaf's CN and DNS SubjectAltName
`;

export class CertificatesUsageError extends Error {}

export const runCertificates = async (args: readonly string[], out: (line: string) => void): Promise<number> => {
  const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: { out: { type: 'string' }, cn: { type: 'string' } } });
  if (positionals.join(' ') !== 'certificates generate') throw new CertificatesUsageError(`unknown command: ${positionals.join(' ')}`);
  if (!values.out) throw new CertificatesUsageError('certificates generate: --out is required');
  const commonName = values.cn ?? 'localhost';
  const chain = await generateChain(commonName, [{ type: 'dns', value: commonName }]);
  try {
    await writeChainFiles(values.out, chain, { includeCaKey: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Never overwrite keys: an operator may be one command away from losing a CA.
    process.stderr.write(`certificates generate: ${(err as NodeJS.ErrnoException).path ?? values.out} already exists; choose an empty --out\n`);
    return 1;
  }
  out(JSON.stringify({
    dir: values.out,
    files: ['ca.pem', 'ca-key.pem', 'certificate.pem', 'key.pem'],
    client_id: x509HashClientId(chain.leaf.certificate),
    trust_anchor: Buffer.from(chain.ca.certificate.rawData).toString('base64'),
  }));
  return 0;
};
