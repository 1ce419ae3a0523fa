/**
 * `memledger verify`: replays the whole log and re-checks every invariant the fold can see —
 * seqs gapless from 0, unique ids, deletions of existing undeleted content, recalls of visible
 * content, and every stored event decodable — and that no erased item still decrypts: for
 * every Erasure, each target's key is gone from the key store and a read of the target gives
 * the erasure marker. Exit 0 when sound, 2 at the first violation.
 */
import { Option, type Command } from 'commander';
import {
  MemoryError,
  isErased,
  isMemoryError,
  type Erasure,
  type MemoryErrorCode,
  type Sequenced,
} from '../../core/index.js';
import type { KeyStore } from '../../keys/index.js';
import { keyStoreOf, sealedPartsOf } from '../../store/sealed/sealed-store.js';
import type { MemoryStore } from '../../store/event-log.port.js';
import { cleanupReport } from './verify-cleanup.js';
import type { EventLog } from '../../store/event-log.port.js';
import { foldLog } from '../fold-log.js';
import { globalOptionsOf, requireEvents, withStore } from '../open.js';
import { seqText, writeLine } from '../output.js';
import { integerAtLeast } from '../parse-options.js';
import { auditExport, auditStore, type CheckpointOptions } from './verify-checkpoint.js';

interface VerifyOptions extends CheckpointOptions {
  readonly all?: boolean;
  readonly repairErasures?: boolean;
  readonly finishCleanup?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Errors that mean the log itself is unsound (anything else is an ordinary failure). */
const VIOLATIONS: ReadonlySet<MemoryErrorCode> = new Set([
  'REPLAY_ORDER',
  'LOG_INVARIANT_VIOLATED',
  'EVENT_DECODE_FAILED',
]);

/**
 * What `verify` reports besides the errors of {@link VIOLATIONS}: an erased item whose key is
 * still in the key store, or whose read still gives words (`ERASED_CONTENT_READABLE`), and a log
 * with erasures opened without its key store, where that cannot be checked
 * (`ERASURE_UNVERIFIABLE`).
 */
export type ErasureFinding = 'ERASED_CONTENT_READABLE' | 'ERASURE_UNVERIFIABLE';

/** The exit code of a log that breaks an invariant (1 stays for ordinary errors). */
export const VIOLATION_EXIT_CODE = 2;

/** Registers `verify` on the program. */
export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description('replay the whole log and re-check every invariant; exit 2 at the first violation')
    .option('--all', 'verify every memory of the store, not only --memory')
    .option(
      '--repair-erasures',
      'first destroy again the keys of erased items that came back (a key store restored from a backup older than the erasure)',
    )
    .option(
      '--finish-cleanup',
      "wait until every erasure's clean-up completes (old page images scrubbed from every file), however long a reader holds an older snapshot",
    )
    .option('--checkpoint <file>', 'also check the log against this checkpoint note, saved earlier')
    .addOption(
      new Option('--vkey <key line>', "the log's verifier key the checkpoint is signed by").env(
        'MEMLEDGER_LOG_VKEY',
      ),
    )
    .option('--witness <key line>', 'a witness key whose cosignature counts (repeat)', collect, [])
    .option(
      '--quorum <k>',
      'how many --witness keys must have cosigned (default: all)',
      integerAtLeast(0),
    )
    .option(
      '--export <file>',
      'check a stored-form export (memledger export --stored) against --checkpoint instead of the store',
    )
    .addHelpText(
      'after',
      `
Prints "ok: N events, last seq S", or "violation [CODE] at seq S: <what>" for the first
event that breaks an invariant (exit code 2). Codes: REPLAY_ORDER (seq out of order or
after a gap), LOG_INVARIANT_VIOLATED (repeated id, deletion or recall of unknown, non-content
or deleted content), EVENT_DECODE_FAILED (a stored event the schemas reject),
ERASED_CONTENT_READABLE (an erased item whose key is still in the key store, or whose read
still gives its words; --repair-erasures destroys such keys again first), ERASURE_UNVERIFIABLE
(a log with erasures opened without its key store, e.g. MEMLEDGER_ENCRYPTION=off).

After the memories, one "erasure clean-up:" line when opening found an erasure whose files were
not scrubbed yet (a crash between its commit and its scrub): opening scrubs them; if a reader
holds an older snapshot, the line says ERASURE_CLEANUP_PENDING (exit code 2) unless
--finish-cleanup waited for it.

With --checkpoint <note> --vkey <key line>: every leaf is recomputed from the log (its stored
form, sealed words sealed: MEMLEDGER_ENCRYPTION=off reads a file without its key store), the
note's signature (and --witness/--quorum) and origin <key name>/<memory> are checked, and the
root of the first <size> leaves must be the signed one, so the log extends the checkpoint.
Violations (exit 2): LEAF_DIFFERS at seq S (the event whose leaf is not the one the tree
recorded when it was appended), ROOT_DIFFERS (the root differs: the history was rewritten, the
tree too), LOG_GAP and LOG_TRUNCATED at seq S, EVENT_DECODE_FAILED, or the note's own code
(NOTE_UNVERIFIED, CHECKPOINT_MISMATCH, QUORUM_NOT_MET). With --export <file> the stored-form
export is checked instead of the store (no tree there: only "the root differs" can be said).`,
    )
    .action(async (options: VerifyOptions, command: Command) => {
      const { memory, readModels } = globalOptionsOf(command);
      if (options.export !== undefined || options.checkpoint !== undefined) {
        checkCheckpointOptions(options);
      }
      if (options.export !== undefined) {
        const report = await auditExport({ ...options, export: options.export }, memory);
        for (const line of report.lines) await writeLine(process.stdout, line);
        if (!report.ok) process.exitCode = VIOLATION_EXIT_CODE;
        return;
      }
      await withStore(
        command,
        async (store) => {
          if (!options.all) await requireEvents(store, memory);
          const ids = options.all ? await store.memoryIds() : [memory];
          let sound = true;
          for (const id of ids) {
            const lines = await verifyLog(store.log(id), keyStoreOf(store), options);
            sound &&= lines.at(-1)!.startsWith('ok');
            for (const line of lines)
              await writeLine(process.stdout, `${options.all ? `${id}: ` : ''}${line}`);
          }
          if (options.checkpoint !== undefined) {
            const report = await auditStore(options, store, readModels, memory);
            for (const line of report.lines) await writeLine(process.stdout, line);
            sound &&= report.ok;
          }
          const cleanup = await verifyCleanup(store, options);
          if (cleanup !== undefined) {
            process.stdout.write(`${cleanup.line}\n`);
            sound &&= cleanup.sound;
          }
          if (!sound) process.exitCode = VIOLATION_EXIT_CODE;
        },
        { mustExist: true },
      );
    });
}

/** `--checkpoint` is for one memory, and `--export` needs it. */
function checkCheckpointOptions(options: VerifyOptions): void {
  const refuse = (path: string, message: string) => {
    throw new MemoryError('VALIDATION_FAILED', `Invalid options: --${path} ${message}.`, {
      issues: [{ path, message }],
    });
  };
  if (options.checkpoint === undefined) refuse('export', 'needs --checkpoint <note>');
  if (options.all)
    refuse('all', 'cannot be used with --checkpoint (a checkpoint is of one memory)');
}

/** The clean-up line of a sealed store, when there is anything to say. */
async function verifyCleanup(
  store: MemoryStore,
  options: VerifyOptions,
): Promise<{ line: string; sound: boolean } | undefined> {
  const sealed = sealedPartsOf(store);
  if (sealed === undefined) return undefined;
  const found = await sealed.ready;
  // A repair (--repair-erasures) destroyed keys again: their files want a scrub too.
  let now = sealed.cleanup.scrub();
  if (options.finishCleanup && now.state === 'pending') {
    await sealed.cleanup.settled();
    now = sealed.cleanup.scrub();
  }
  return cleanupReport(found, now);
}

/**
 * `ok: ...` or `violation [CODE] at seq S: message`, after a `repaired: ...` line when
 * `--repair-erasures` destroyed keys again. The log is folded once for both.
 */
async function verifyLog(
  log: EventLog,
  keys: KeyStore | undefined,
  options: VerifyOptions,
): Promise<string[]> {
  try {
    const { state, events } = await foldLog(log);
    const erasures = Object.entries(state.erased);
    const lines: string[] = [];
    if (options.repairErasures && keys !== undefined) {
      const repaired = repairErasures(log.memoryId, keys, Object.values(state.erased));
      if (repaired > 0) {
        lines.push(
          `repaired: destroyed again the keys of ${repaired} erased item${repaired === 1 ? '' : 's'}`,
        );
      }
    }
    const finding = await checkErasures(log, keys, erasures);
    if (finding !== undefined) return [...lines, finding];
    const erased = erasures.length === 0 ? '' : `, ${erasures.length} erased items unreadable`;
    return [...lines, `ok: ${events} events, last seq ${seqText(state.lastSeq)}${erased}`];
  } catch (error) {
    if (!isMemoryError(error) || !VIOLATIONS.has(error.code)) throw error;
    const seq = error.details.seq;
    return [
      `violation [${error.code}]${typeof seq === 'number' ? ` at seq ${seq}` : ''}: ${error.message}`,
    ];
  }
}

/**
 * Destroys again the keys of erased items whose key is back in the key store (a backup older
 * than the erasure was restored): the Erasure is on record, so its key destruction is simply run
 * again. Returns how many keys it destroyed.
 */
function repairErasures(
  memoryId: string,
  keys: KeyStore,
  erasures: readonly Sequenced<Erasure>[],
): number {
  let repaired = 0;
  for (const erasure of new Set(erasures)) {
    const found = keys.lookup(memoryId, erasure.targets);
    const alive = erasure.targets.filter((id) => Buffer.isBuffer(found.get(id)));
    if (alive.length === 0) continue;
    // The intent names exactly the targets that still have a key (the others are tombstoned).
    keys.beginErasure(memoryId, erasure.id, alive);
    keys.completeErasure(memoryId, erasure.id);
    repaired += alive.length;
  }
  return repaired;
}

/** How many erased ids one key-store lookup asks about. */
const LOOKUP_BATCH = 500;

/**
 * The first erased item that could still be read: its key not destroyed in the key store, or a
 * read of it that gives words instead of the erasure marker. Undefined when every one is gone.
 */
async function checkErasures(
  log: EventLog,
  keys: KeyStore | undefined,
  erasures: readonly (readonly [string, Sequenced<Erasure>])[],
): Promise<string | undefined> {
  const finding = (code: ErasureFinding, erasure: Sequenced<Erasure>, what: string) =>
    `violation [${code}] at seq ${erasure.seq}: ${what}`;
  const [first] = erasures;
  if (first === undefined) return undefined;
  if (keys === undefined) {
    return finding(
      'ERASURE_UNVERIFIABLE',
      first[1],
      `Erasure ${first[1].id} cannot be checked: the store was opened without its key store (MEMLEDGER_ENCRYPTION=off?).`,
    );
  }
  for (let at = 0; at < erasures.length; at += LOOKUP_BATCH) {
    const batch = erasures.slice(at, at + LOOKUP_BATCH);
    const found = keys.lookup(
      log.memoryId,
      batch.map(([id]) => id),
    );
    for (const [id, erasure] of batch) {
      const key = found.get(id);
      if (key !== 'erased') {
        const state = key === undefined ? 'has no tombstone' : 'still holds its key';
        return finding(
          'ERASED_CONTENT_READABLE',
          erasure,
          `Item ${id}, erased by ${erasure.id}, ${state} in the key store ${keys.description}.`,
        );
      }
      const event = await log.get(id);
      if (event === undefined || !isErased(event)) {
        return finding(
          'ERASED_CONTENT_READABLE',
          erasure,
          `Item ${id}, erased by ${erasure.id}, reads back ${event === undefined ? 'as missing' : 'with its words'} instead of the erasure marker.`,
        );
      }
    }
  }
  return undefined;
}
