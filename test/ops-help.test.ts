// Every command of the ops tool has its help, generated from the command tree itself: a command
// added later is covered without touching this test.
import test from 'ava';
import type { Command } from 'commander';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opsProgram } from '../ops/program.js';
import { opsScript, runScript } from './support/processes.js';

/** Every command under `command` with the words that reach it, parents before children. */
const commandsUnder = (command: Command, path: readonly string[] = []): { path: string[]; command: Command }[] =>
  command.commands.flatMap((sub) => {
    const subPath = [...path, sub.name()];
    return [{ path: subPath, command: sub }, ...commandsUnder(sub, subPath)];
  });

test('--help of the tool and of every command exits 0 with its usage on stdout, and touches no store', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'ops-help-'));
  try {
    const commands = commandsUnder(opsProgram());
    t.true(commands.length >= 20, `only ${commands.length} commands found`);
    for (const path of [[], ...commands.map((c) => c.path)]) {
      const result = await runScript(opsScript, [...path, '--help'], { DATA_DIR: dataDir }, { timeoutMs: 30_000 });
      const words = path.join(' ');
      t.is(result.code, 0, words);
      t.is(result.stderr, '', words);
      // An alias may follow the command's own name (`Usage: ops tenants|tenant`).
      t.true(result.stdout.startsWith(`Usage: ${['ops', ...path].join(' ')}`), `${words}: ${result.stdout.split('\n')[0]}`);
    }
    t.deepEqual(await readdir(dataDir), [], 'help opened no store');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('every command that does something takes --json', (t) => {
  const leaves = commandsUnder(opsProgram()).filter((c) => c.command.commands.length === 0);
  for (const { path, command } of leaves) t.true(command.options.some((o) => o.long === '--json'), path.join(' '));
});

test('help for a command is also `ops help <command>`, exit 0', async (t) => {
  const result = await runScript(opsScript, ['help', 'api-keys'], {}, { timeoutMs: 30_000 });
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /^Usage: ops api-keys\|key \[options\] \[command\]\n[\s\S]*\n  revoke\|delete \[options\] <api-key-id> /);
});
