// Where tests keep the key-encryption key: a file in a private temporary directory of this test
// process, never DATA_DIR nor the user's configuration directory (the service's default). Every
// service a test process starts, in-process or as a child process, shares it, as services on one
// host share the default file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEK_FILE } from '../../src/crypto/kek.js';

const dir = mkdtempSync(join(tmpdir(), 'connector-kek-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
// Anything that still falls back to the default location lands here, not in the real home.
process.env['XDG_CONFIG_HOME'] = dir;

export const TEST_KEK_FILE = join(dir, KEK_FILE);

/** The variables that point a service (or the ops tool) at it. */
export const testKekEnv: Readonly<Record<string, string>> = { DATA_KEY_ENCRYPTION_KEY_FILE: TEST_KEK_FILE };
