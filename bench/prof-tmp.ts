import { performance } from 'node:perf_hooks';
import { Sqlite } from '../src/sqlite.js';
const stats = new Map<string, [number, number]>();
if (process.env['COUNT']) for (const m of ['run', 'get', 'all', 'exec'] as const) {
  const orig = (Sqlite.prototype as any)[m];
  (Sqlite.prototype as any)[m] = function (this: unknown, sql: string, ...rest: unknown[]) {
    const t = performance.now(); try { return orig.call(this, sql, ...rest); } finally {
      const k = m + ' ' + sql.replace(/\s+/g, ' ').slice(0, 110); const s = stats.get(k) ?? [0, 0]; s[0]++; s[1] += performance.now() - t; stats.set(k, s); } };
}
import { createHolder, createTestIssuer, sd } from '../test/support/credentials.js';
import { startTestService, type TestService } from '../test/support/service.js';
import { answer, fetchAuthorizationRequest } from '../test/support/wallet/presentation.js';
const VCT = 'urn:eudi:pid:1';
const dcqlQuery = { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['given_name'] }, { path: ['family_name'] }] }] };
const service: TestService = await startTestService({ env: JSON.parse(process.env['ENV'] ?? '{}') });
const issuer = await createTestIssuer();
const holder = await createHolder();
const credential = await issuer.issue({ vct: VCT, claims: { given_name: sd('Erika'), family_name: sd('Mustermann') }, holder });
const timings: Record<string, number> = { create: 0, fetch: 0, answer: 0 };
const flow = async () => {
  let t = performance.now();
  const created = await service.management('/oidc4vp', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ dcql_query: dcqlQuery }) });
  const { cross_device_request_uri: uri } = (await created.json()) as { cross_device_request_uri: string };
  timings['create']! += performance.now() - t; t = performance.now();
  const endpoints = { publicUrl: service.config.publicUrl, listenUrl: service.service.publicListenUrl };
  const request = await fetchAuthorizationRequest(endpoints, uri);
  timings['fetch']! += performance.now() - t; t = performance.now();
  const posted = await answer(endpoints, request, { pid: { credential, holder } });
  timings['answer']! += performance.now() - t;
  if (posted.status !== 200) throw new Error(String(posted.status));
};
const run = async (count: number) => {
  const started = performance.now(); let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => { while (next < count) { next++; await flow(); } }));
  return count / ((performance.now() - started) / 1000);
};
await run(100);
for (const k in timings) timings[k] = 0; stats.clear();
const N = Number(process.env['N'] ?? 600);
const elu0 = performance.eventLoopUtilization(); const cpu0 = process.cpuUsage();
const rate = await run(N);
const elu = performance.eventLoopUtilization(elu0); const cpu = process.cpuUsage(cpu0);
console.log('main ms/flow', (elu.active / N).toFixed(2), 'cpu ms/flow', ((cpu.user + cpu.system) / 1000 / N).toFixed(2), 'elu', elu.utilization.toFixed(2));
console.log('flows/s', rate.toFixed(1), Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, (v / N).toFixed(2)])));
if (process.env['COUNT']) { [...stats].sort((a, b) => b[1][1] - a[1][1]).slice(0, 40).forEach(([k, [c, t]]) => console.log((c / N).toFixed(2), (t / N).toFixed(3) + 'ms', k)); }
await service.cleanup();
