/**
 * The fault suite's line reader (faults/support.ts `waitForLine`) against a child that prints its
 * line and exits at once: the child's exit can reach the parent before its stdout does, and a
 * reader that gave up on the exit reported "child exited before /^opened$/" for a line that was
 * printed (seen in the migration kill trials on a loaded machine).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { waitForLine } from '../../faults/support.js';

/** Keeps this process busy, without turning its event loop, until the child is a zombie. */
function blockUntilExited(child: ChildProcess): void {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const state = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.[0];
    if (state === 'Z') return;
  }
  throw new Error(`child ${child.pid} did not exit in 10 s`);
}

describe('waitForLine, the fault suite reading a child process line by line', () => {
  it('finds a line the child printed right before it exited, when the exit is seen first', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const child = spawn(process.execPath, ['-e', "process.stdout.write('opened\\n')"], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // Both the exit and the output are then pending when the event loop next turns.
      blockUntilExited(child);
      await expect(waitForLine(child, /^opened$/, 10_000)).resolves.toEqual(
        expect.arrayContaining(['opened']),
      );
    }
  });
});
