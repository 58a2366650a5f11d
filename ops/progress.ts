// The rebuild's progress on stderr: on a terminal, a bar redrawn in place; otherwise (a pipe, a
// log file) plain lines, one each tenth of the way and the last one, so a log stays short. How
// far it is comes from positions: the checkpoint's against the head's when the rebuild began.
import { formatPosition, parsePosition, type Position } from '../src/eventstore/port.js';
import type { RunnerStatus } from '../src/readside/readModels.js';

export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface Progress {
  update(status: RunnerStatus): void;
  /** The last state, and the end of the bar's line. */
  end(status: RunnerStatus): void;
}

const BAR = 24;

/** Events appended during the rebuild take the checkpoint past the head: the bar stays full. */
const fraction = (checkpoint: string, head: Position): number => {
  if (head.commit === 0n) return 1;
  const at = parsePosition(checkpoint)?.commit ?? 0n;
  return Math.min(1, Number(at) / Number(head.commit));
};

export const rebuildProgress = (stream: ProgressStream, head: Position): Progress => {
  const describe = (s: RunnerStatus): string =>
    `${s.applied} events applied, checkpoint ${s.checkpoint} of head ${formatPosition(head)}, ${s.quarantine.total} quarantined`;
  if (stream.isTTY) {
    const draw = (s: RunnerStatus): void => {
      const done = fraction(s.checkpoint, head);
      const filled = Math.round(done * BAR);
      // \r returns to the line's start, \x1b[K clears what a longer previous line left.
      stream.write(`\rrebuilding [${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${Math.floor(done * 100)}% ${describe(s)}\x1b[K`);
    };
    return { update: draw, end: (s) => (draw(s), stream.write('\n')) };
  }
  let tenths = -1;
  let last = '';
  const line = (s: RunnerStatus): void => {
    last = `rebuilding: ${describe(s)}`;
    stream.write(`${last}\n`);
  };
  return {
    update: (s) => {
      const reached = Math.floor(fraction(s.checkpoint, head) * 10);
      if (reached <= tenths) return;
      tenths = reached;
      line(s);
    },
    end: (s) => {
      if (`rebuilding: ${describe(s)}` !== last) line(s);
    },
  };
};
