// The ops tool's command tree. Each group of commands is a module exporting `register…(program)`
// and one line in GROUPS; its commands are created with `.command()` so that they inherit the
// root's settings (errors through exitOverride, the hint after a usage error).
import { Command } from 'commander';
import { withoutUserInfo } from '../src/http/redact.js';
import { registerApiKeys } from './apiKeys.js';
import { registerCallbacks } from './callbacks.js';
import { registerCertificates } from './certificates.js';
import { registerDeliveries } from './deliveries.js';
import { registerKeys } from './keys.js';
import { registerProjections } from './projections.js';
import { registerStreams } from './streams.js';
import { registerSupport } from './support.js';
import { registerTenants } from './tenants.js';
import { registerTrustLists } from './trustLists.js';

const GROUPS: readonly ((program: Command) => void)[] = [
  registerTenants,
  registerApiKeys,
  registerCallbacks,
  registerDeliveries,
  registerProjections,
  registerStreams,
  registerTrustLists,
  registerCertificates,
  registerKeys,
  registerSupport,
];

export const opsProgram = (): Command => {
  const program = new Command('ops')
    .description("The operator's command line: tenants, API keys, callbacks, support requests, read models, auditor replay, trusted lists, keys in a PKCS#11 token.")
    .addHelpText(
      'after',
      `
Run it as npm run -s ops -- <command> [options]. It works on the service's store, configured by the
same environment variables (DATA_DIR, EVENTSTORE_CONNECTION_STRING, READ_MODELS_FILE, ...), also
beside a running instance. Every command takes --json: JSON Lines, one object per line.
Exit codes: 0 done; 1 failed; 2 bad input or refused (nothing changed).`,
    )
    // Commander would exit the process itself; ops/cli.ts turns its errors into exit code 2.
    .exitOverride()
    // Commander quotes a refused value: a URL's password stays out of it.
    .configureOutput({ outputError: (text, write) => write(withoutUserInfo(text)) })
    .showHelpAfterError('(add --help for usage)');
  for (const register of GROUPS) register(program);
  return program;
};
