// SoftHSM2 for the PKCS#11 suites: a temporary token directory per test process (SOFTHSM2_CONF,
// set before the module is first initialised in this process), tokens made with softhsm2-util,
// and the connector's keys made in them by `ops keys generate`. Without SoftHSM2 the suites are
// skipped, saying why in the test title (.ci/run installs it, so CI always runs them).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenOptions } from '../../src/crypto/pkcs11/token.js';
import { generateTokenKey, type GeneratedKey } from '../../ops/keys.js';

export const SOFTHSM_MODULE = process.env['SOFTHSM2_MODULE'] ?? '/usr/lib/softhsm/libsofthsm2.so';

const utilAvailable = (): boolean => {
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Why the suite cannot run here, or undefined when SoftHSM2 is installed. */
export const softHsmMissing: string | undefined = !existsSync(SOFTHSM_MODULE)
  ? `SoftHSM2 is not installed (no ${SOFTHSM_MODULE}; apt-get install softhsm2)`
  : !utilAvailable()
    ? 'SoftHSM2 is not installed (no softhsm2-util; apt-get install softhsm2)'
    : undefined;

const dir = mkdtempSync(join(tmpdir(), 'connector-softhsm-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
export const TOKEN_DIR = join(dir, 'tokens');
const conf = join(dir, 'softhsm2.conf');
writeFileSync(conf, `directories.tokendir = ${TOKEN_DIR}\nobjectstore.backend = file\nlog.level = ERROR\n`);
process.env['SOFTHSM2_CONF'] = conf;

export const TEST_PIN = '271828';
const SO_PIN = '31415926';

/** A fresh token labelled `label` in this process's token directory; its options with `pin`. */
export const createTestToken = async (label: string): Promise<TokenOptions> => {
  await mkdir(TOKEN_DIR, { recursive: true });
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', TEST_PIN, '--so-pin', SO_PIN], { stdio: 'ignore', env: process.env });
  return { module: SOFTHSM_MODULE, tokenLabel: label, pin: TEST_PIN, sessions: 4 };
};

/** The connector's three keys in the token, the signing ones with development chains in `dir`. */
export const generateConnectorKeys = async (token: TokenOptions, outDir: string, prefix = ''): Promise<{ access: GeneratedKey; issuer: GeneratedKey; kek: GeneratedKey }> => ({
  access: await generateTokenKey(token, { role: 'access', label: `${prefix}access`, devChain: join(outDir, `${prefix}access-chain.pem`), commonName: 'localhost', country: 'DE' }),
  issuer: await generateTokenKey(token, { role: 'issuer', label: `${prefix}issuer`, devChain: join(outDir, `${prefix}issuer-chain.pem`), commonName: 'localhost', country: 'DE' }),
  kek: await generateTokenKey(token, { role: 'kek', label: `${prefix}kek`, commonName: 'unused', country: 'DE' }),
});

/** The service's variables for the token and the keys generateConnectorKeys made. */
export const pkcs11Env = (token: TokenOptions, outDir: string, prefix = ''): Record<string, string> => ({
  KEY_STORE: 'pkcs11',
  PKCS11_MODULE: token.module,
  PKCS11_TOKEN_LABEL: token.tokenLabel ?? '',
  PKCS11_PIN: token.pin,
  ACCESS_KEY_LABEL: `${prefix}access`,
  ISSUER_KEY_LABEL: `${prefix}issuer`,
  KEK_LABEL: `${prefix}kek`,
  ACCESS_CERTIFICATE_FILE: join(outDir, `${prefix}access-chain.pem`),
  ISSUER_CERTIFICATE_FILE: join(outDir, `${prefix}issuer-chain.pem`),
  // The token holds the KEK: the test's KEK file is not used.
  DATA_KEY_ENCRYPTION_KEY_FILE: '',
});
