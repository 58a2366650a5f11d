// Runs the project's own entry points as child processes.
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { testKekEnv } from './kek.js';

export const mainScript = fileURLToPath(new URL('../../src/main.js', import.meta.url));
export const opsScript = fileURLToPath(new URL('../../ops/cli.js', import.meta.url));
export const demoScript = fileURLToPath(new URL('../../demo/run.js', import.meta.url));
export const walletScript = fileURLToPath(new URL('../../wallet/cli.js', import.meta.url));
export const receiveScript = fileURLToPath(new URL('../../demo/receive.js', import.meta.url));

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a script to its end with the given environment (no inherited variables but PATH; the test
 * process's key file). With `timeoutMs`, a script still running then is killed (code null): a
 * wedge fails, never hangs.
 */
export const runScript = (script: string, args: readonly string[], env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env['PATH'] ?? '', ...testKekEnv, ...env }, timeout: options.timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

export interface RunningService {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly managementUrl: string;
  readonly publicUrl: string;
  /** Every log line so far. */
  readonly lines: string[];
  exited: Promise<number | null>;
}

/** Starts `main` (this build's, or `script`) and resolves once it logs that it is listening. */
export const startMain = (env: Record<string, string>, script = mainScript): Promise<RunningService> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      env: { PATH: process.env['PATH'] ?? '', ...testKekEnv, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buffered = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    exited.then((code) => reject(new Error(`service exited early with ${code}: ${lines.join('\n')}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const complete = buffered.split('\n');
      buffered = complete.pop() ?? '';
      for (const line of complete) {
        lines.push(line);
        const parsed = JSON.parse(line) as { msg?: string; management?: string; public?: string };
        if (parsed.msg === 'listening') {
          resolve({ child, managementUrl: parsed.management!, publicUrl: parsed.public!, lines, exited });
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
  });

export interface RunningReceiver {
  /** Where to send callbacks. */
  readonly url: string;
  /** Each line it printed: the callbacks whose signature verified. */
  readonly callbacks: { webhook_id: string; body: { status?: string } }[];
  stop(): void;
}

/** Starts the compose files' callback receiver (this build's, or `script`) and resolves once it listens. */
export const startReceiveScript = (env: Record<string, string>, script = receiveScript): Promise<RunningReceiver> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const callbacks: RunningReceiver['callbacks'] = [];
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const lines = stdout.split('\n');
      stdout = lines.pop() ?? '';
      for (const line of lines) callbacks.push(JSON.parse(line) as RunningReceiver['callbacks'][number]);
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const listening = /receiver: listening at (\S+)/.exec(stderr);
      if (listening) resolve({ url: listening[1]!, callbacks, stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`receiver exited with ${code}: ${stderr}`)));
  });

/**
 * Every file under `dir` whose bytes contain `text`, by grep in a child process: closing a file
 * descriptor of an SQLite file in this process would drop the locks the in-process service holds
 * on it (POSIX record locks belong to the process), so this process never opens them itself.
 */
export const filesHolding = async (dir: string, text: string): Promise<string[]> =>
  new Promise((resolve, reject) =>
    execFile('grep', ['-r', '-l', '-a', '-F', '--', text, dir], (err, stdout) => {
      // grep: 0 found, 1 none found, 2 an error.
      if (err && err.code !== 1) return reject(err);
      resolve(stdout.split('\n').filter(Boolean));
    }),
  );
