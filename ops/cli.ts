// The operator's command line: `npm run -s ops -- --help` (ops/run.mjs builds it when needed).
// The commands are in ops/program.ts.
import { CommanderError } from 'commander';
import { REFUSED } from './action.js';
import { opsProgram } from './program.js';

try {
  await opsProgram().parseAsync(process.argv);
} catch (err) {
  if (!(err instanceof CommanderError)) throw err;
  // Commander has said what was wrong. Help asked for ends with 0; any other error of the command line is bad input.
  process.exitCode = err.exitCode === 0 ? 0 : REFUSED;
}
