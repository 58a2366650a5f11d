// Group `tenants` (issue 38): 100 tenants, each its own credential issuer and verifier, against one
// tenant with keys of its own, in one service process (bench/cpu.ts) and in the same run.
//
// Before the service starts, 101 tenants and an API key each (scopes admin and connector) are
// written to its store, as `ops tenants create` does. Each tenant is then onboarded through the
// real routes: POST /signing-keys {role: issuer, development_chain: true} and its activation
// (If-Match), the same for an access key, and POST /credential-configurations with its own `pid`
// (a vct of its own). The first tenant is the reference; the other 100 are ours.
//
// Rounds of issuance flows (POST /offers with the tenant's key, the wallet simulator at the
// tenant's credential issuer `{PUBLIC_URL}/issuers/{tenant_id}`) and of verification flows
// (POST /oidc4vp with the tenant's key, request object signed with its access key) take the two
// sides in turn, which side goes first alternating: the reference's flows all go to the one
// tenant, ours round-robin over the 100. Figure: the service's CPU time per flow, ours over the
// reference (target at most 1.1). Memory per tenant: the service's RSS after onboarding the 100
// (and after one flow of each kind for each of them, its caches filled) minus its RSS before,
// over 100; before is taken after as many flows for the reference tenant alone, so what the
// flows themselves grow is in both. Knobs: BENCH_ROUNDS, BENCH_CPU_FLOWS (flows a round, a side
// and a kind; default 300), BENCH_PROFILE_DIR (the service's CPU profile, as for the *-cpu groups).
import { isLeft } from 'fp-ts/lib/Either.js';
import { DEFAULT_CONFIGURATIONS } from '../src/issuance/configurations.js';
import { openEventStore } from '../src/eventstore/open.js';
import { createApiKey, createTenant } from '../src/tenancy/commands.js';
import { tenantCredentialIssuer } from '../src/tenantIdentity/ports.js';
import { testConfig } from '../test/support/service.js';
import { childTarget, startChild, type ChildServer, type CpuBenchOptions, type FlowTarget } from './cpu.js';
import { flow as issuanceFlow } from './issuance.js';
import type { Figure } from './report.js';
import { runInFlight } from './load.js';
import { verificationFlow } from './verification.js';

/** Tenants on the measured side. */
const TENANTS = 100;
/** Flows in flight, as in the issuance and verification groups. */
const IN_FLIGHT = 8;

export interface TenantsBenchOptions extends CpuBenchOptions {
  readonly dir: string;
  readonly rounds: number;
  readonly progress: (message: string) => void;
}

interface Tenant {
  readonly tenantId: string;
  readonly secret: string;
}

/** Where one tenant's flows go: its management calls with its own key, its wallet at its own issuer. */
interface TenantTargets {
  readonly issuance: FlowTarget;
  readonly verification: FlowTarget;
}

const PID_FILE_ENTRY = DEFAULT_CONFIGURATIONS.credential_configurations.find((c) => c.id === 'pid')!;

/** 1 + TENANTS tenants, each with an API key, written to the store before the service opens it. */
const createTenants = async (dataDir: string): Promise<Tenant[]> => {
  const store = await openEventStore(testConfig(dataDir));
  try {
    const tenants: Tenant[] = [];
    for (let i = 0; i <= TENANTS; i++) {
      const created = await createTenant(store, { name: `bench tenant ${i}` }, { actor: 'bench' });
      if (isLeft(created)) throw new Error(`bench: tenant: ${created.left.error._tag}`);
      const key = await createApiKey(store, { tenantId: created.right.tenantId, scopes: ['admin', 'connector'], expiration: null }, { actor: 'bench' });
      if (isLeft(key)) throw new Error(`bench: API key: ${key.left.error._tag}`);
      tenants.push({ tenantId: created.right.tenantId, secret: key.right.secret });
    }
    return tenants;
  } finally {
    await store.close();
  }
};

const targetsOf = (child: ChildServer, tenant: Tenant): TenantTargets => {
  const verification = childTarget(child, tenant.secret);
  return {
    issuance: { ...verification, publicUrl: tenantCredentialIssuer(child.publicUrl, tenant.tenantId), listenUrl: `${child.publicListenUrl}/issuers/${tenant.tenantId}` },
    verification,
  };
};

const expect = async (response: Response, status: number, what: string): Promise<{ id: string; etag: string }> => {
  if (response.status !== status) throw new Error(`bench: ${what} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string; etag: string };
};

/** A tenant's issuer and access keys (development chains, activated) and its own `pid` configuration, through the routes. */
const onboard = async (target: FlowTarget, index: number): Promise<void> => {
  const json = { 'Content-Type': 'application/json' };
  for (const role of ['issuer', 'access']) {
    const key = await expect(
      await target.management('/signing-keys', { method: 'POST', headers: json, body: JSON.stringify({ role, development_chain: true }) }),
      201,
      `POST /signing-keys (${role})`,
    );
    await expect(await target.management(`/signing-keys/${key.id}/activate`, { method: 'POST', headers: { 'If-Match': key.etag } }), 200, 'activate');
  }
  const configuration = { ...PID_FILE_ENTRY, vct: `urn:bench:tenant-${index}:pid:1` };
  await expect(
    await target.management('/credential-configurations', { method: 'POST', headers: json, body: JSON.stringify({ data: configuration }) }),
    201,
    'POST /credential-configurations',
  );
};

const fixed = (n: number): string => n.toFixed(2);
const MB = 1024 * 1024;

export const tenantsFigures = async (options: TenantsBenchOptions): Promise<Figure[]> => {
  const dataDir = `${options.dir}/tenants`;
  options.progress(`tenants: ${TENANTS + 1} tenants and their API keys written to the store`);
  const [reference, ...tenants] = await createTenants(dataDir);
  const verify = await verificationFlow(options.dir);
  const child = await startChild({ service: dataDir });
  try {
    const one = targetsOf(child, reference!);
    const many = tenants.map((tenant) => targetsOf(child, tenant));
    const flows = {
      issuance: (targets: TenantTargets) => issuanceFlow(targets.issuance),
      verification: (targets: TenantTargets) => verify(targets.verification),
    };
    const warmUp = async (targets: readonly TenantTargets[]) => {
      for (const kind of ['verification', 'issuance'] as const) {
        let next = 0;
        await runInFlight(TENANTS, IN_FLIGHT, () => flows[kind](targets[next++ % targets.length]!));
      }
    };
    await onboard(one.verification, 0);
    await warmUp([one]);
    const before = await child.rssBytes();

    options.progress(`tenants: onboarding ${TENANTS} tenants through the routes (2 signing keys with development chains, activated; a credential configuration)`);
    let onboarded = 0;
    await runInFlight(TENANTS, 4, () => {
      const index = ++onboarded;
      return onboard(many[index - 1]!.verification, index);
    });
    const afterOnboarding = await child.rssBytes();
    await warmUp(many);
    const afterFlows = await child.rssBytes();

    const samples = { issuance: { ours: [] as number[], reference: [] as number[] }, verification: { ours: [] as number[], reference: [] as number[] } };
    const cpuPerFlow = async (kind: keyof typeof flows, targets: readonly TenantTargets[]): Promise<number> => {
      let next = 0;
      const started = await child.cpuMs();
      await runInFlight(options.cpuFlows, IN_FLIGHT, () => flows[kind](targets[next++ % targets.length]!));
      return ((await child.cpuMs()) - started) / options.cpuFlows;
    };
    options.progress(`tenants: ${options.rounds} rounds of ${options.cpuFlows} flows a side and kind, ${IN_FLIGHT} in flight`);
    for (let round = 0; round < options.rounds; round++) {
      for (const kind of ['verification', 'issuance'] as const) {
        if (round % 2 === 0) {
          samples[kind].ours.push(await cpuPerFlow(kind, many));
          samples[kind].reference.push(await cpuPerFlow(kind, [one]));
        } else {
          samples[kind].reference.push(await cpuPerFlow(kind, [one]));
          samples[kind].ours.push(await cpuPerFlow(kind, many));
        }
      }
    }
    const perTenant = (after: number) => (after - before) / TENANTS / MB;
    const memoryNote =
      `service RSS ${fixed(before / MB)} MB before onboarding (after ${TENANTS} flows of each kind for the reference tenant), ` +
      `${fixed(afterOnboarding / MB)} MB after onboarding ${TENANTS} tenants (${fixed(perTenant(afterOnboarding))} MB a tenant), ` +
      `${fixed(afterFlows / MB)} MB after one flow of each kind for each of them (${fixed(perTenant(afterFlows))} MB a tenant).`;
    return (['verification', 'issuance'] as const).map((kind) => ({
      name: `${kind}: service CPU per flow, ${TENANTS} tenants / one`,
      unit: 'ms',
      ours: samples[kind].ours,
      reference: samples[kind].reference,
      target: { atMost: 1.1 },
      note:
        `ours: ${options.cpuFlows} ${kind} flows a round spread round-robin over ${TENANTS} tenants, each with its own issuer and access key ` +
        `(development chains, activated through the routes) and its own credential configuration; reference: as many flows for one tenant onboarded the same way; ` +
        `the same service process, ${IN_FLIGHT} in flight, rounds alternating which side goes first. ` +
        (kind === 'issuance' ? memoryNote : ''),
    }));
  } finally {
    await child.stop();
  }
};
