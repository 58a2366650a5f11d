// The floor under any flow made of HTTP exchanges: one bare loopback exchange (fetch to a Koa app
// that reads a JSON body and answers with JSON, nothing else), with as many in flight as the flow
// benchmarks run. A flow of K exchanges plus its cryptography cannot beat K of these plus the
// crypto-only loop's time, whatever the service does or omits; the flow figures print that bound.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { runInFlight, type Sides } from './load.js';
import { median } from './stats.js';

const BODY = JSON.stringify({ payload: 'x'.repeat(1500) });

/** Milliseconds per bare exchange, `inFlight` at once (the median of `rounds`). */
const bareExchangeMs = async (inFlight: number, rounds = 3, count = 2000): Promise<number> => {
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    ctx.body = { echoed: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payload: string }).payload.length, answer: BODY };
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const exchange = async (): Promise<void> => {
    const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: BODY });
    await response.json();
  };
  const run = async (): Promise<number> => 1000 / (await runInFlight(count, inFlight, exchange)).perSecond;
  try {
    await run();
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) samples.push(await run());
    return median(samples);
  } finally {
    server.close();
  }
};

/**
 * The best ratio a flow of `exchanges` exchanges can reach against a crypto-only loop running
 * `referencePerSecond`: the crypto's time over the crypto's time plus the bare exchanges'.
 */
const ceilingRatio = (referencePerSecond: number, exchanges: number, exchangeMs: number): number => {
  const cryptoMs = 1000 / referencePerSecond;
  return cryptoMs / (cryptoMs + exchanges * exchangeMs);
};

/**
 * The bound bare HTTP sets on a flow figure, measured now, and the note that says it: the ceiling
 * `exchanges` exchanges and the reference's cryptography allow, and where a flow's main-thread
 * time goes against the 0.6 target (the cryptography, the bare exchanges, and what that leaves).
 */
export const flowCeiling = async (
  label: string,
  inFlight: number,
  exchanges: number,
  sides: Sides,
  progress: (message: string) => void,
): Promise<string> => {
  const exchangeMs = await bareExchangeMs(inFlight);
  const ceiling = ceilingRatio(median(sides.reference), exchanges, exchangeMs);
  progress(`${label}: ${exchangeMs.toFixed(3)} ms per bare loopback exchange; ${exchanges} exchanges bound the ratio at ${ceiling.toFixed(2)}`);
  const oursMs = median(sides.oursMainMs);
  const referenceMs = median(sides.referenceMainMs);
  const exchangesMs = exchanges * exchangeMs;
  const budget = referenceMs / 0.6 - referenceMs - exchangesMs;
  return (
    `Ceiling: a bare loopback exchange (bench/exchange.ts) took ${exchangeMs.toFixed(3)} ms in this run, so ${exchanges} exchanges ` +
    `and this cryptography allow at most ${ceiling.toFixed(2)}, before any storage or check. ` +
    `Main thread per flow (event-loop utilisation): ours ${oursMs.toFixed(2)} ms, reference ${referenceMs.toFixed(2)} ms; ` +
    `the bare exchanges take ${exchangesMs.toFixed(2)} ms, so a ratio of 0.6 leaves ${budget.toFixed(2)} ms for all the rest ` +
    `(storage, checks, routing, projections, callbacks), where ours spends ${(oursMs - referenceMs - exchangesMs).toFixed(2)} ms.`
  );
};
