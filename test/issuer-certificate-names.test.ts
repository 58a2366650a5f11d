// Wallets accept an SD-JWT VC whose issuer key comes from `x5c` only when the leaf certificate
// names `iss`. The development Issuer Signing Certificate carries those names for PUBLIC_URL; a
// kept development identity without them is replaced; a configured certificate without them is
// warned about at start.
import test from 'ava';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, type JWK } from 'jose';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { Verifier } from '@sd-jwt/types';
import { certificatesFromPem, certificatesToPem, createCertificateAuthority, createLeafCertificate, privateKeyToPem } from '../src/crypto/certificates.js';
import { generateChain, writeChainFiles } from '../src/crypto/signingIdentity.js';
import { createLogger } from '../src/log.js';
import { createHolder, createTestIssuer, sd } from './support/credentials.js';
import { startTestService, withTestService, type TestService } from './support/service.js';
import { IssuanceWallet } from './support/wallet/issuance.js';
import { createOffer, PID_CLAIMS, statusListFetcher } from './support/wallet/issuanceChecks.js';

const json = (part: string): Record<string, unknown> => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

/**
 * An issuer-signature verifier as the OpenWallet Foundation's Credo (on oid4vc-ts) resolves an
 * `x5c` issuer: `iss` must be an https URL (http only where insecure URLs are allowed, as for a
 * service on localhost), and the leaf must carry a SAN URI equal to `iss` or a SAN DNS name equal
 * to its host; only then is the leaf's key used. Certificates are read with node:crypto, not with
 * the code under test.
 */
const x5cIssuerVerifier =
  (options: { readonly allowInsecureHttp: boolean }): Verifier =>
  async (data, signature) => {
    const [headerPart, payloadPart] = data.split('.');
    const header = json(headerPart ?? '');
    const iss = json(payloadPart ?? '')['iss'];
    const x5c = header['x5c'];
    if (typeof iss !== 'string') throw new Error('no iss');
    if (!Array.isArray(x5c) || typeof x5c[0] !== 'string') throw new Error('no x5c');
    if (!iss.startsWith('https://') && !(iss.startsWith('http://') && options.allowInsecureHttp)) throw new Error('iss is not an https URL');
    const leaf = new X509Certificate(Buffer.from(x5c[0], 'base64'));
    const names = (leaf.subjectAltName ?? '').split(', ');
    if (!names.includes(`URI:${iss}`) && !names.includes(`DNS:${new URL(iss).hostname}`)) {
      throw new Error(`the iss claim ${iss} matches no SAN-URI or SAN-DNS name of the x5c leaf (${leaf.subjectAltName ?? 'none'})`);
    }
    return (await ES256.getVerifier(leaf.publicKey.export({ format: 'jwk' })))(data, signature);
  };

/** With `service`, a credential's status list is fetched from that service's real listen address. */
const verifierLibrary = async (holderPrivateJwk?: JWK, service?: TestService): Promise<SDJwtVcInstance> =>
  new SDJwtVcInstance({
    hasher: digest,
    verifier: x5cIssuerVerifier({ allowInsecureHttp: true }),
    ...(service ? { statusListFetcher: statusListFetcher(service) } : {}),
    kbVerifier: async (data, signature, payload) => {
      const jwk = (payload['cnf'] as { jwk?: JWK } | undefined)?.jwk;
      if (!jwk) throw new Error('no cnf.jwk');
      return (await ES256.getVerifier(jwk))(data, signature);
    },
    ...(holderPrivateJwk ? { kbSigner: await ES256.getSigner(holderPrivateJwk), kbSignAlg: 'ES256' } : {}),
  });

/** Receives a PID from the service's own issuer and presents two claims with key binding. */
const issueAndPresent = async (service: TestService, nonce: string): Promise<string> => {
  const created = await createOffer(service, { credential_configuration_id: 'pid', claims: PID_CLAIMS });
  const wallet = await IssuanceWallet.create(service.config.publicUrl, service.service.publicListenUrl);
  const credential = await wallet.receive(created.credential_offer_uri);
  const holder = await verifierLibrary(await exportJWK(wallet.holderKey.privateKey));
  return holder.present(credential, { given_name: true, family_name: true }, {
    kb: { payload: { aud: 'x509_hash:verifier', nonce, iat: Math.floor(Date.now() / 1000) } },
  });
};

const verifyPresentation = async (service: TestService, presentation: string, nonce: string) =>
  (await verifierLibrary(undefined, service)).verify(presentation, { keyBindingNonce: nonce, requiredClaimKeys: ['given_name', 'family_name'] });

test('a credential from the development identity is accepted by a verifier that requires the x5c leaf to name iss', async (t) => {
  // The verifier is real: a leaf without the names is refused.
  const other = await createTestIssuer();
  const holder = await createHolder();
  const foreign = await other.issue({ vct: 'urn:eudi:pid:1', claims: { given_name: sd('Erika') }, holder });
  await t.throwsAsync((await verifierLibrary()).verify(`${foreign.jwt}~${Object.values(foreign.disclosures).join('~')}~`), {
    message: /matches no SAN-URI or SAN-DNS name/,
  });

  await withTestService(async (service) => {
    t.is(String(service.config.publicUrl), 'http://localhost:8080');
    const presentation = await issueAndPresent(service, 'n-0S6_WzA2Mj');
    const verified = await verifyPresentation(service, presentation, 'n-0S6_WzA2Mj');
    t.is(verified.payload['iss'], 'http://localhost:8080');
    t.like(verified.payload, { given_name: 'Erika', family_name: 'Mustermann' });
    t.truthy(verified.kb);
  });
});

test('with an IP address in PUBLIC_URL the development leaf names it as iPAddress and iss as a URI', async (t) => {
  await withTestService(
    async (service) => {
      const leaf = new X509Certificate(await readFile(join(service.dataDir, 'issuer-identity', 'certificate.pem')));
      t.is(leaf.subjectAltName, 'IP Address:127.0.0.1, URI:http://127.0.0.1:9443');
      const verified = await verifyPresentation(service, await issueAndPresent(service, 'nonce-ip'), 'nonce-ip');
      t.is(verified.payload['iss'], 'http://127.0.0.1:9443');
      // The access certificate names the host the same way.
      const access = new X509Certificate(await readFile(join(service.dataDir, 'access-identity', 'certificate.pem')));
      t.is(access.subjectAltName, 'IP Address:127.0.0.1');
    },
    { env: { PUBLIC_URL: 'http://127.0.0.1:9443' } },
  );
});

test('a kept development identity without the names PUBLIC_URL needs is set aside, replaced and reported', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'identity-upgrade-'));
  try {
    // As an older version left it: no subjectAltName at all.
    const old = await generateChain('Connector issuer (development)');
    await writeChainFiles(join(dataDir, 'issuer-identity'), old);
    const lines: string[] = [];
    const log = createLogger({ level: 'warn', write: (line) => lines.push(line) });

    let service = await startTestService({ dataDir, log });
    await service.stop();
    const setAside = `issuer-identity.replaced-${old.leaf.certificate.serialNumber}`;
    t.true((await readdir(dataDir)).includes(setAside));
    const [kept] = certificatesFromPem(await readFile(join(dataDir, setAside, 'certificate.pem'), 'utf8'));
    t.is(kept?.serialNumber, old.leaf.certificate.serialNumber);
    const current = new X509Certificate(await readFile(join(dataDir, 'issuer-identity', 'certificate.pem')));
    t.is(current.subjectAltName, 'DNS:localhost, URI:http://localhost:8080');
    const warnings = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['identity'] === 'issuer');
    t.is(warnings.length, 1);
    t.like(warnings[0], { level: 'warn', missing: ['dns:localhost', 'uri:http://localhost:8080'], setAside: join(dataDir, setAside) });

    // The same configuration keeps it; another PUBLIC_URL replaces it again.
    service = await startTestService({ dataDir, log });
    await service.stop();
    t.is(new X509Certificate(await readFile(join(dataDir, 'issuer-identity', 'certificate.pem'))).serialNumber, current.serialNumber);
    t.is(lines.length, 1);
    service = await startTestService({ dataDir, log, env: { PUBLIC_URL: 'https://connector.example' } });
    await service.stop();
    const moved = new X509Certificate(await readFile(join(dataDir, 'issuer-identity', 'certificate.pem')));
    t.is(moved.subjectAltName, 'DNS:connector.example, URI:https://connector.example');
    t.true((await readdir(dataDir)).some((name) => name.toLowerCase() === `issuer-identity.replaced-${current.serialNumber.toLowerCase()}`));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a configured Issuer Signing Certificate that does not name the issuer identifier is warned about at start', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'issuer-files-'));
  try {
    const ca = await createCertificateAuthority({ commonName: 'Issuer CA' });
    const files = async (name: string, subjectAltNames: Parameters<typeof createLeafCertificate>[1]['subjectAltNames']) => {
      const leaf = await createLeafCertificate(ca, { commonName: name, ...(subjectAltNames ? { subjectAltNames } : {}) });
      await writeFile(join(dir, `${name}.pem`), certificatesToPem([leaf.certificate, ca.certificate]));
      await writeFile(join(dir, `${name}-key.pem`), await privateKeyToPem(leaf.keys.privateKey));
      return { ISSUER_CERTIFICATE_FILE: join(dir, `${name}.pem`), ISSUER_KEY_FILE: join(dir, `${name}-key.pem`) };
    };
    const warningsWith = async (env: Record<string, string>): Promise<Record<string, unknown>[]> => {
      const lines: string[] = [];
      await withTestService(async () => undefined, { env: { PUBLIC_URL: 'https://issuer.example/tenant-a', ...env }, log: createLogger({ level: 'warn', write: (l) => lines.push(l) }) });
      return lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => String(l['msg']).startsWith('ISSUER_CERTIFICATE_FILE'));
    };

    const unnamed = await warningsWith(await files('unnamed', [{ type: 'dns', value: 'other.example' }]));
    t.is(unnamed.length, 1);
    t.like(unnamed[0], { level: 'warn', issuer: 'https://issuer.example/tenant-a', subjectAltNames: ['dns:other.example'] });
    t.deepEqual(await warningsWith(await files('by-uri', [{ type: 'url', value: 'https://issuer.example/tenant-a' }])), []);
    t.deepEqual(await warningsWith(await files('by-dns', [{ type: 'dns', value: 'issuer.example' }])), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
