/**
 * `memledger erase <id> --reason <text>`: makes an item's words unrecoverable. Visible content is
 * deleted and erased in one atomic append; content already deleted is erased. The store's guard
 * refuses anything else with its own code (a recall, an unknown id, an item already erased), and
 * a store without keys with `ERASURE_UNAVAILABLE`; nothing is written then.
 */
import type { Command } from 'commander';
import { isContent, isMemoryError, type ErasureInput } from '../../core/index.js';
import type {
  DeletionAndErasure,
  ErasureCleanupStatus,
  ErasureOutcome,
  EventLookup,
  MemoryHandle,
} from '../../memory/index.js';
import { globalOptionsOf, withMemory } from '../open.js';
import { operator } from '../operator.js';
import { memoryPath, remoteOf, type Remote } from '../remote.js';

interface EraseOptions {
  readonly reason: string;
  readonly requestedBy?: string;
  readonly actor?: string;
}

/** Registers `erase` on the program. */
export function registerEraseCommand(program: Command): void {
  program
    .command('erase')
    .description(
      'erase one item: its words become unrecoverable (its key is destroyed), the act stays on record',
    )
    .argument('<id>', 'the id of a message or document (visible, or already deleted)')
    .requiredOption('--reason <text>', 'why it is erased (kept on record)')
    .option('--requested-by <who>', 'who asked for the erasure (kept on record)')
    .option('--actor <name>', 'which component performs it (kept on record)', 'memledger-cli')
    .addHelpText(
      'after',
      `
Visible content is deleted and erased in one atomic append (a Deletion, then an Erasure, with
the same reason and requester); content already deleted gets an Erasure. The item's id, seq,
times and both acts stay in the log; its words are gone from every read, export and copy.
Refused (exit 1, nothing written): ALREADY_ERASED, ERASURE_TARGET_NOT_CONTENT (a recall, a
deletion or an erasure), ERASURE_TARGET_UNKNOWN, ERASURE_UNAVAILABLE (a store without keys,
e.g. MEMLEDGER_ENCRYPTION=off when it was written).`,
    )
    .action(async (rawId: string, options: EraseOptions, command: Command) => {
      const id = rawId.trim().toLowerCase();
      const remote = remoteOf(command);
      if (remote) {
        const lines = await eraseThrough(remote, globalOptionsOf(command).memory, id, options);
        for (const line of lines) process.stdout.write(`${line}\n`);
        return;
      }
      await withMemory(command, async (memory) => {
        for (const line of await erase(memory, id, options)) process.stdout.write(`${line}\n`);
      });
    });
}

/**
 * The same through a server, with no read: an Erasure first (for content already deleted), and
 * when the item is still visible, a Deletion that erases too. The key needs `erase` (and
 * `delete` for visible content).
 */
async function eraseThrough(
  remote: Remote,
  memoryId: string,
  id: string,
  options: EraseOptions,
): Promise<string[]> {
  const act = actOf(id, options);
  try {
    const { erasure, cleanup } = await remote.post<ErasureOutcome>(
      memoryPath(memoryId, 'erasures'),
      act,
    );
    return [
      `erased item ${id} in memory ${memoryId} (through ${remote.url})`,
      `  erasure ${erasure.id} at seq ${erasure.seq}`,
      `  reason: ${erasure.reason}`,
      cleanupLine(cleanup),
    ];
  } catch (error) {
    if (!isMemoryError(error, 'ERASURE_TARGET_NOT_DELETED')) throw error;
  }
  const { deletion, erasure, cleanup } = await remote.post<DeletionAndErasure>(
    memoryPath(memoryId, 'deletions'),
    { ...act, erase: true },
  );
  return [
    `deleted and erased item ${id} in memory ${memoryId} (through ${remote.url})`,
    `  deletion ${deletion.id} at seq ${deletion.seq}, erasure ${erasure.id} at seq ${erasure.seq}`,
    `  reason: ${erasure.reason}`,
    cleanupLine(cleanup),
  ];
}

/** The act the options describe. */
function actOf(id: string, options: EraseOptions): ErasureInput {
  return {
    targets: [id],
    reason: options.reason,
    ...(options.requestedBy === undefined ? {} : { requestedBy: options.requestedBy }),
    ...(options.actor === undefined ? {} : { actor: options.actor }),
    source: 'cli',
  };
}

/** Deletes-and-erases visible content, erases deleted content; the lines saying what it did. */
async function erase(memory: MemoryHandle, id: string, options: EraseOptions): Promise<string[]> {
  // On the store itself the command line vouches for its user; a server records its caller.
  const act = { ...actOf(id, options), recordedBy: operator() };
  const found = await lookup(memory, id);
  if (found !== undefined && isContent(found.event) && !found.deleted) {
    const { deletion, erasure, cleanup } = await memory.deleteAndErase(act);
    return [
      `deleted and erased ${found.event.kind} ${id} in memory ${memory.memoryId}`,
      `  deletion ${deletion.id} at seq ${deletion.seq}, erasure ${erasure.id} at seq ${erasure.seq}`,
      `  reason: ${erasure.reason}`,
      cleanupLine(cleanup),
    ];
  }
  // Everything else goes to the guard, which names the id and why (unknown, not content, erased).
  const { erasure, cleanup } = await memory.eraseContent(act);
  return [
    `erased ${found?.event.kind ?? 'item'} ${id} in memory ${memory.memoryId} (deleted at seq ${found?.deletedBy?.seq ?? '?'})`,
    `  erasure ${erasure.id} at seq ${erasure.seq}`,
    `  reason: ${erasure.reason}`,
    cleanupLine(cleanup),
  ];
}

/** Whether the words are gone from disk, in the words an operator reads. */
function cleanupLine(cleanup: ErasureCleanupStatus): string {
  return cleanup.state === 'done'
    ? '  on disk: the words are gone from every file'
    : `  on disk: clean-up pending since ${cleanup.since} (${cleanup.reason}); the next process to open the store finishes it, or run memledger verify --finish-cleanup`;
}

async function lookup(memory: MemoryHandle, id: string): Promise<EventLookup | undefined> {
  try {
    return await memory.getEvent(id);
  } catch (error) {
    if (isMemoryError(error, 'EVENT_NOT_FOUND')) return undefined;
    throw error;
  }
}
