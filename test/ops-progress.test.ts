// The rebuild's progress: a bar redrawn in place on a terminal, a few plain lines otherwise.
import test from 'ava';
import { rebuildProgress, type ProgressStream } from '../ops/progress.js';
import type { RunnerStatus } from '../src/readside/readModels.js';

const stream = (isTTY: boolean): ProgressStream & { written: string[] } => {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
};

const at = (position: number, quarantined = 0): RunnerStatus => ({
  checkpoint: `${position}/${position}`,
  caughtUp: false,
  applied: position,
  commits: 1,
  lastLagMs: null,
  failing: null,
  quarantine: { total: quarantined, unacknowledged: quarantined },
});

const head = { commit: 200n, prepare: 200n };

test('on a terminal the bar is redrawn on one line at every update and ended with a newline', (t) => {
  const terminal = stream(true);
  const progress = rebuildProgress(terminal, head);
  progress.update(at(50));
  progress.update(at(100, 1));
  progress.end(at(200, 1));
  t.deepEqual(terminal.written, [
    '\rrebuilding [######------------------] 25% 50 events applied, checkpoint 50/50 of head 200/200, 0 quarantined\x1b[K',
    '\rrebuilding [############------------] 50% 100 events applied, checkpoint 100/100 of head 200/200, 1 quarantined\x1b[K',
    '\rrebuilding [########################] 100% 200 events applied, checkpoint 200/200 of head 200/200, 1 quarantined\x1b[K',
    '\n',
  ]);
});

test('off a terminal a line is written each tenth of the way and for the end, never twice the same', (t) => {
  const pipe = stream(false);
  const progress = rebuildProgress(pipe, head);
  for (let position = 1; position <= 200; position++) progress.update(at(position));
  progress.end(at(200));
  t.is(pipe.written.length, 11);
  t.is(pipe.written[0], 'rebuilding: 1 events applied, checkpoint 1/1 of head 200/200, 0 quarantined\n');
  t.is(pipe.written[1], 'rebuilding: 20 events applied, checkpoint 20/20 of head 200/200, 0 quarantined\n');
  t.is(pipe.written[10], 'rebuilding: 200 events applied, checkpoint 200/200 of head 200/200, 0 quarantined\n');
});

test('off a terminal the end is written when the last update was not, and an empty store is done at once', (t) => {
  const pipe = stream(false);
  const progress = rebuildProgress(pipe, head);
  progress.update(at(10));
  progress.update(at(15));
  progress.end(at(15, 2));
  t.deepEqual(pipe.written, [
    'rebuilding: 10 events applied, checkpoint 10/10 of head 200/200, 0 quarantined\n',
    'rebuilding: 15 events applied, checkpoint 15/15 of head 200/200, 2 quarantined\n',
  ]);
  const empty = stream(true);
  rebuildProgress(empty, { commit: 0n, prepare: 0n }).end(at(0));
  t.regex(empty.written[0]!, /\[#{24}\] 100% 0 events applied/);
});
