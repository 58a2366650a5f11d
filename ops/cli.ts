// The operator's command line. It works on the same store as the service (the same
// environment variables), so it can run beside a live instance.
//   npm run -s ops -- help
import { parseArgs } from 'node:util';
import { isLeft } from 'fp-ts/lib/Either.js';
import { allScopes, Scope } from '../streams/apiKey.js';
import { loadConfig, type Config } from '../src/config.js';
import { openEventStore } from '../src/eventstore/open.js';
import { parsePosition, type EventStore, type Position } from '../src/eventstore/port.js';
import { createApiKey, createTenant, deleteApiKey } from '../src/tenancy/commands.js';
import { CERTIFICATES_USAGE, CertificatesUsageError, runCertificates } from './certificates.js';
import { callbacksOptions, callbacksUsage, runCallbacksCommand } from './callbacks.js';
import { projectionsUsage, runProjectionsCommand } from './projections.js';
import { printAll, printStream } from './replay.js';
import { runTrustListsCommand, trustListsUsage } from './trustLists.js';

const USAGE = `usage: npm run -s ops -- <command>

  tenant create --name NAME [--scopes admin,connector,resources] [--expires ISO-8601]
      creates a tenant and its first API key; prints the secret once
  key create --tenant TENANT_ID [--scopes ...] [--expires ISO-8601]
      adds an API key to a tenant; prints the secret once
  key delete KEY_ID
      revokes an API key
  stream STREAM_ID
      prints a stream as JSON lines (auditor replay)
  all [--from COMMIT/PREPARE] [--to COMMIT/PREPARE]
      prints $all between two positions, both inclusive, as JSON lines
${projectionsUsage}${CERTIFICATES_USAGE}${callbacksUsage}${trustListsUsage}`;

class UsageError extends Error {}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const scopesOption = (value: string | undefined): Scope[] => {
  if (value === undefined) return [...allScopes];
  const scopes = value.split(',').map((s) => s.trim());
  const bad = scopes.filter((s) => !Scope.is(s));
  if (bad.length > 0 || scopes.length === 0) throw new UsageError(`--scopes: unknown scope(s) ${bad.join(', ')}; choose from ${allScopes.join(', ')}`);
  return scopes.filter(Scope.is);
};

const expiresOption = (value: string | undefined): string | null => {
  if (value === undefined) return null;
  const time = Date.parse(value);
  if (Number.isNaN(time) || time <= Date.now()) throw new UsageError('--expires: expected a future ISO 8601 date-time');
  return new Date(time).toISOString();
};

const positionOption = (name: string, value: string | undefined): Position | undefined => {
  if (value === undefined) return undefined;
  const position = parsePosition(value);
  if (!position) throw new UsageError(`--${name}: expected COMMIT/PREPARE, e.g. 42/42`);
  return position;
};

const orFail = <A>(result: { _tag: 'Left'; left: { _tag: string } } | { _tag: 'Right'; right: A }): A => {
  if (isLeft(result)) throw new UsageError(`refused: ${JSON.stringify(result.left)}`);
  return result.right;
};

const metadata = { actor: 'ops' };

const run = async (args: readonly string[], config: Config, store: EventStore): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      tenant: { type: 'string' },
      scopes: { type: 'string' },
      expires: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      ...callbacksOptions,
    },
  });
  const [command, sub, arg] = positionals;
  const callbacks = await runCallbacksCommand(`${command} ${sub ?? ''}`.trim(), values, config, store, out, (m) => new UsageError(m));
  if (callbacks !== undefined) return callbacks;
  const projections = command === 'projections' ? await runProjectionsCommand(positionals.slice(1), config, store, out, (m) => new UsageError(m)) : undefined;
  if (projections !== undefined) return projections;
  const trustLists = await runTrustListsCommand(`${command} ${sub ?? ''}`.trim(), config, store, out, (m) => new UsageError(m));
  if (trustLists !== undefined) return trustLists;
  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'tenant create': {
      if (!values.name) throw new UsageError('tenant create: --name is required');
      const scopes = scopesOption(values.scopes);
      const expiration = expiresOption(values.expires);
      const { tenantId } = orFail(await createTenant(store, { name: values.name }, metadata));
      const key = orFail(await createApiKey(store, { tenantId, scopes, expiration }, metadata));
      out(JSON.stringify({ tenant_id: tenantId, api_key_id: key.keyId, secret: key.secret, scopes, expiration }));
      return 0;
    }
    case 'key create': {
      if (!values.tenant) throw new UsageError('key create: --tenant is required');
      const key = orFail(
        await createApiKey(store, { tenantId: values.tenant, scopes: scopesOption(values.scopes), expiration: expiresOption(values.expires) }, metadata),
      );
      out(JSON.stringify({ tenant_id: key.tenantId, api_key_id: key.keyId, secret: key.secret, scopes: key.scopes, expiration: key.expiration }));
      return 0;
    }
    case 'key delete': {
      if (!arg) throw new UsageError('key delete: KEY_ID is required');
      orFail(await deleteApiKey(store, arg, metadata));
      out(JSON.stringify({ api_key_id: arg, deleted: true }));
      return 0;
    }
  }
  if (command === 'stream' && sub) {
    if (await printStream(store, sub, out)) return 0;
    process.stderr.write(`stream ${sub} does not exist or was deleted\n`);
    return 2;
  }
  if (command === 'all' && !sub) {
    const from = positionOption('from', values.from);
    const to = positionOption('to', values.to);
    await printAll(store, { ...(from ? { from } : {}), ...(to ? { to } : {}) }, out);
    return 0;
  }
  throw new UsageError(command === undefined || command === 'help' ? '' : `unknown command: ${positionals.join(' ')}`);
};

const usageFailure = (err: unknown): number => {
  const usage = err instanceof UsageError || err instanceof CertificatesUsageError || (err instanceof TypeError && 'code' in err);
  if (!usage) throw err;
  if (err.message) process.stderr.write(`${err.message}\n`);
  process.stderr.write(USAGE);
  return 2;
};

const main = async (): Promise<number> => {
  // Needs no store or configuration: it only writes files.
  if (process.argv[2] === 'certificates') return runCertificates(process.argv.slice(2), out).catch(usageFailure);
  const config = loadConfig(process.env);
  if (isLeft(config)) {
    for (const message of config.left) process.stderr.write(`configuration error: ${message}\n`);
    return 1;
  }
  const store = await openEventStore(config.right);
  try {
    return await run(process.argv.slice(2), config.right, store);
  } catch (err) {
    return usageFailure(err);
  } finally {
    await store.close();
  }
};

process.exitCode = await main();
