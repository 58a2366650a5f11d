// KEY_STORE=pkcs11 (SoftHSM2, keys made by `ops keys generate`) beside KEY_STORE=file in one run:
// whole verification and issuance flows over loopback HTTP against two services in this process,
// rounds alternating; and ES256 signing in the token with the session pool (PKCS11_SESSIONS=4)
// against one session, which is what signing behind a single session would give. Skipped, saying
// why, without SoftHSM2.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openKeyStore } from '../src/app/keyStore.js';
import { silentLogger } from '../src/log.js';
import { startTestService, testConfig, type TestService } from '../test/support/service.js';
import { createTestToken, generateConnectorKeys, pkcs11Env, softHsmMissing } from '../test/support/softhsm.js';
import type { FlowTarget } from './cpu.js';
import { issuanceFlow } from './issuance.js';
import { alternatingRounds, runInFlight } from './load.js';
import type { Figure } from './report.js';
import { flow as verificationFlow, parties } from './verification.js';

const IN_FLIGHT = 8;
const SIGNATURES = 400;

export interface KeystoreBenchOptions {
  readonly dir: string;
  readonly rounds: number;
  readonly roundSeconds: number;
  readonly progress: (message: string) => void;
}

const targetOf = (service: TestService): FlowTarget => ({ management: service.management, publicUrl: service.config.publicUrl, listenUrl: service.service.publicListenUrl });

export const keystoreFigures = async (options: KeystoreBenchOptions): Promise<Figure[]> => {
  if (softHsmMissing) {
    options.progress(`keystore: skipped (${softHsmMissing})`);
    return [];
  }
  const token = await createTestToken('bench');
  const keysDir = join(options.dir, 'keystore-keys');
  await mkdir(keysDir, { recursive: true });
  await generateConnectorKeys(token, keysDir);
  const env = pkcs11Env(token, keysDir);
  const pkcs11 = await startTestService({ dataDir: join(options.dir, 'keystore-pkcs11'), env });
  const file = await startTestService({ dataDir: join(options.dir, 'keystore-file') });
  try {
    const figures: Figure[] = [];
    const pkcs11Wallet = (await parties(pkcs11.config)).wallet;
    const fileWallet = (await parties(file.config)).wallet;
    const verify = { pkcs11: () => verificationFlow(targetOf(pkcs11), pkcs11Wallet), file: () => verificationFlow(targetOf(file), fileWallet) };
    const issue = { pkcs11: () => issuanceFlow(targetOf(pkcs11)), file: () => issuanceFlow(targetOf(file)) };
    for (const [name, sides] of [['verification', verify], ['issuance', issue]] as const) {
      const { perSecond: warm } = await runInFlight(20, IN_FLIGHT, sides.file);
      await runInFlight(20, IN_FLIGHT, sides.pkcs11);
      const count = Math.max(20, Math.min(2000, Math.round(warm * options.roundSeconds)));
      options.progress(`keystore: ${name}, ${options.rounds} rounds of ${count} flows a side, ${IN_FLIGHT} in flight`);
      const measured = await alternatingRounds(options.rounds, count, IN_FLIGHT, sides.pkcs11, sides.file);
      figures.push({
        name: `${name} flows, KEY_STORE=pkcs11 (SoftHSM2) vs file`,
        unit: 'flows/s',
        ours: measured.ours,
        reference: measured.reference,
        target: { atLeast: 0.5 },
        note: `ours: whole ${name} flows over loopback HTTP with the signing keys and the KEK in a SoftHSM2 token (CKM_ECDSA, CKM_AES_GCM, PKCS11_SESSIONS=4); reference: the same flows against a KEY_STORE=file service in the same process; ${IN_FLIGHT} in flight.`,
      });
    }

    // The session pool: signatures in parallel over 4 sessions against 1.
    const withSessions = async (sessions: number) => openKeyStore(testConfig(join(options.dir, 'keystore-sign'), { ...env, PKCS11_SESSIONS: String(sessions) }), silentLogger);
    const pooled = await withSessions(4);
    const single = await withSessions(1);
    try {
      const data = Buffer.from('bench');
      const pooledSigner = (await pooled.signingIdentity('issuer', undefined as never)).signer;
      const singleSigner = (await single.signingIdentity('issuer', undefined as never)).signer;
      const measured = await alternatingRounds(options.rounds, SIGNATURES, IN_FLIGHT, () => pooledSigner.sign(data), () => singleSigner.sign(data));
      figures.push({
        name: 'ES256 signatures in the token, 4 sessions vs 1',
        unit: 'signatures/s',
        ours: measured.ours,
        reference: measured.reference,
        target: { atLeast: 1 },
        note: `${SIGNATURES} signatures a round, ${IN_FLIGHT} in flight, C_SignAsync on the libuv pool; ours PKCS11_SESSIONS=4, reference one session (signing serialised behind it).`,
      });
    } finally {
      pooled.close();
      single.close();
    }
    return figures;
  } finally {
    await pkcs11.stop();
    await file.stop();
  }
};
