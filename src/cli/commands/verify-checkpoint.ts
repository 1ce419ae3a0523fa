/**
 * `memledger verify --checkpoint saved.note --vkey "<key line>"`: the log of `--memory` (in the
 * store the global options name, or in a stored-form export with `--export`) checked against a
 * checkpoint saved earlier: signature, root at its size, and that the log extends it
 * (src/cli/checkpoint-audit.ts). The tree the server recorded beside the log, when there is one,
 * only helps name the tampered seq; it is read as it stands, never advanced.
 */
import { existsSync, readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { openConnection } from '../../db/better-sqlite3.js';
import { MemoryError } from '../../core/index.js';
import { leafHashOfEvent, recordedTree } from '../../projections/tree/index.js';
import type { EventLog, MemoryStore } from '../../store/event-log.port.js';
import { checkMemoryId } from '../../store/memory-id.js';
import { SIGNATURE_TYPE, parseVerifierKey, type CheckpointTrust } from '../../verify/index.js';
import {
  auditCheckpoint,
  type AuditReport,
  type AuditedLeaf,
  type RecordedTree,
} from '../checkpoint-audit.js';
import { exportLeaves } from '../stored-export.js';

/** The options of `verify` this check reads. */
export interface CheckpointOptions {
  readonly checkpoint?: string;
  readonly vkey?: string;
  readonly witness: readonly string[];
  readonly quorum?: number;
  readonly export?: string;
}

/** Whom the saved note must be signed by: the log key, with origin `<key name>/<memory>`. */
async function trustOf(options: CheckpointOptions, memoryId: string): Promise<CheckpointTrust> {
  const line = options.vkey?.trim();
  if (!line) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      "--checkpoint needs --vkey: the log's verifier key line (memledger keygen printed it).",
      { issues: [{ path: 'vkey', message: 'required with --checkpoint' }] },
    );
  }
  const log = await parseVerifierKey(line, SIGNATURE_TYPE.ed25519);
  const witnesses = await Promise.all(
    options.witness.map((w) => parseVerifierKey(w.trim(), SIGNATURE_TYPE.cosignature)),
  );
  return {
    log,
    witnesses,
    origin: `${log.name}/${memoryId}`,
    ...(options.quorum === undefined ? {} : { quorum: options.quorum }),
  };
}

function savedNote(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Cannot read the checkpoint ${path}: ${(error as Error).message}.`,
      {
        issues: [{ path: 'checkpoint', message: 'must be a readable file' }],
        cause: error,
      },
    );
  }
}

/** Checks a stored-form export file against the saved checkpoint. */
export async function auditExport(
  options: CheckpointOptions & { export: string },
  memoryId: string,
): Promise<AuditReport> {
  if (!existsSync(options.export)) {
    throw new MemoryError('VALIDATION_FAILED', `The export ${options.export} does not exist.`, {
      issues: [{ path: 'export', message: 'must be an existing file' }],
    });
  }
  return auditCheckpoint({
    note: savedNote(options.checkpoint!),
    trust: await trustOf(options, memoryId),
    leaves: exportLeaves(options.export, checkMemoryId(memoryId)),
  });
}

/** Checks the log of `memoryId` in `store` against the saved checkpoint. */
export async function auditStore(
  options: CheckpointOptions,
  store: MemoryStore,
  readModels: string,
  memoryId: string,
): Promise<AuditReport> {
  const trust = await trustOf(options, memoryId);
  const note = savedNote(options.checkpoint!);
  const file = store.embedded ? undefined : openIfExists(readModels);
  try {
    const db = store.embedded?.database ?? file;
    const found = db && recordedTree(db, memoryId);
    const recorded: RecordedTree | undefined = found && {
      size: found.tree.size(memoryId),
      leafHash: (seq) => found.tree.leafHash(memoryId, seq),
      root: (size) => found.tree.root(memoryId, size),
    };
    return await auditCheckpoint({
      note,
      trust,
      leaves: storeLeaves(store.log(memoryId)),
      ...(recorded ? { recorded } : {}),
    });
  } finally {
    file?.close();
  }
}

async function* storeLeaves(log: EventLog): AsyncGenerator<AuditedLeaf> {
  for await (const projected of log.readProjected()) {
    yield { seq: projected.event.seq, hash: leafHashOfEvent(log.memoryId, projected) };
  }
}

/** The projection file beside an EventStoreDB store, read only, when it exists. */
function openIfExists(path: string): Database.Database | undefined {
  if (path === ':memory:' || !existsSync(path)) return undefined;
  return openConnection(path, { readonly: true, fileMustExist: true });
}
