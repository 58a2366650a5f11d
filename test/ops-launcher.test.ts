// `npm run ops` (ops/run.mjs) runs the built tool and compiles only when the build is missing or
// older than a source. Tried on a project of its own in a temporary directory, with the real
// TypeScript compiler, so the repository's dist/ is never rebuilt under the other tests.
import test from 'ava';
import { copyFile, mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScript } from './support/processes.js';

const repository = fileURLToPath(new URL('../../', import.meta.url));

const project = async (): Promise<string> => {
  const root = await mkdtemp(join(tmpdir(), 'ops-launcher-'));
  await mkdir(join(root, 'ops'));
  await mkdir(join(root, 'src'));
  await copyFile(join(repository, 'ops', 'run.mjs'), join(root, 'ops', 'run.mjs'));
  await symlink(join(repository, 'node_modules'), join(root, 'node_modules'), 'dir');
  await writeFile(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], strict: true, outDir: 'dist', rootDir: '.' },
      include: ['src', 'ops'],
    }),
  );
  await writeFile(join(root, 'src', 'word.ts'), "export const word: string = 'first';\n");
  await writeFile(join(root, 'ops', 'cli.ts'), "import { word } from '../src/word.js';\nprocess.stdout.write(`${word} ${process.argv.slice(2).join(' ')}\\n`);\n");
  return root;
};

const launch = (root: string) => runScript(join(root, 'ops', 'run.mjs'), ['--json', 'x'], {}, { timeoutMs: 120_000 });

/** Makes the build older than `source`, as when a source is edited after a build. */
const editedAfterBuild = async (root: string, source: string): Promise<void> => {
  const { mtime } = await stat(join(root, source));
  const before = new Date(mtime.getTime() - 3_600_000);
  await utimes(join(root, 'dist', 'ops', 'cli.js'), before, before);
};

const compiling = /^ops: compiling \(dist\/ is missing or older than the sources\)$/m;

test('the launcher compiles when the build is missing or older than a source, else runs the build as it is', async (t) => {
  const root = await project();
  try {
    const first = await launch(root);
    t.is(first.code, 0, first.stderr);
    t.regex(first.stderr, compiling);
    t.is(first.stdout, 'first --json x\n', 'arguments reach the tool; stdout holds only its output');

    const second = await launch(root);
    t.is(second.code, 0, second.stderr);
    t.is(second.stderr, '', 'an up-to-date build is not compiled again');
    t.is(second.stdout, 'first --json x\n');

    await writeFile(join(root, 'src', 'word.ts'), "export const word: string = 'second';\n");
    await editedAfterBuild(root, 'src/word.ts');
    const edited = await launch(root);
    t.regex(edited.stderr, compiling);
    t.is(edited.stdout, 'second --json x\n');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a build that fails to type-check runs nothing, and the next call compiles again', async (t) => {
  const root = await project();
  try {
    t.is((await launch(root)).code, 0);
    await writeFile(join(root, 'src', 'word.ts'), 'export const word: string = 42;\n');
    await editedAfterBuild(root, 'src/word.ts');
    for (let attempt = 0; attempt < 2; attempt++) {
      const failed = await launch(root);
      t.is(failed.code, 1);
      t.regex(failed.stderr, compiling);
      t.regex(failed.stderr, /error TS2322/);
      t.regex(failed.stderr, /ops: the build failed \(above\); nothing was run/);
      t.is(failed.stdout, '');
    }
    await writeFile(join(root, 'src', 'word.ts'), "export const word: string = 'fixed';\n");
    const fixed = await launch(root);
    t.is(fixed.code, 0, fixed.stderr);
    t.is(fixed.stdout, 'fixed --json x\n');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
