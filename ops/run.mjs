// `npm run ops`: runs the built tool (dist/ops/cli.js), compiling the project first only when the
// build is missing or older than a source file tsc compiles, so that a call does not pay for a
// type-check. Plain JavaScript: it runs before anything is compiled. The compiler's output goes to
// stderr, keeping stdout for the tool's own output (--json).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'ops', 'cli.js');
const tsconfig = join(root, 'tsconfig.json');

const modified = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs;

/** Whether any .ts file under `dir`, or `dir` itself (a file removed or renamed), changed after `since`. */
const changedAfter = (dir, since) =>
  (modified(dir) ?? 0) > since ||
  readdirSync(dir, { withFileTypes: true }).some((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return changedAfter(path, since);
    return entry.name.endsWith('.ts') && modified(path) > since;
  });

const stale = () => {
  const since = modified(built);
  if (since === undefined || modified(tsconfig) > since) return true;
  const { include } = JSON.parse(readFileSync(tsconfig, 'utf8'));
  return include.some((dir) => modified(join(root, dir)) !== undefined && changedAfter(join(root, dir), since));
};

if (stale()) {
  process.stderr.write('ops: compiling (dist/ is missing or older than the sources)\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const { status } = spawnSync(process.execPath, [tsc, '-p', tsconfig], { stdio: ['ignore', 2, 2] });
  if (status !== 0) {
    // tsc writes its output even when the types are wrong: marking it older than every source
    // makes the next call compile again instead of running what failed to type-check.
    if (modified(built) !== undefined) utimesSync(built, 0, 0);
    process.stderr.write('ops: the build failed (above); nothing was run\n');
    process.exit(1);
  }
}
await import(pathToFileURL(built).href);
