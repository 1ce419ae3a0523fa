/**
 * Driving the tree projection in tests the simplest way there is: a context on a SQLite
 * connection and a loop over `log.readProjected()` calling `apply` in a transaction. Nothing of
 * the runtime that advances it in the application is used.
 */
import Database from 'better-sqlite3';
import type { EventLog } from '../../src/store/event-log.port.js';
import type { ProjectedEvent, ProjectionContext } from '../../src/store/projection.port.js';
import { leafInputOf, treeProjection, type TreeHandler } from '../../src/projections/tree/index.js';
import {
  emptyRoot,
  leafBytes,
  leafHash,
  rootFromLeafHashes,
  type LeafInput,
} from '../../src/verify/index.js';

/** A context on `db` whose memory keys are 1, 2, ... in order of first use. */
export function testContext(db: Database.Database = new Database(':memory:')): ProjectionContext {
  const keys = new Map<string, number>();
  return {
    db,
    memoryKey(memoryId) {
      if (!keys.has(memoryId)) keys.set(memoryId, keys.size + 1);
      return keys.get(memoryId)!;
    },
    existingKey: (memoryId) => keys.get(memoryId),
  };
}

/** The tree open on a fresh in-memory database. */
export function openTestTree(): { tree: TreeHandler; db: Database.Database } {
  const context = testContext();
  return { tree: treeProjection.open(context), db: context.db };
}

/** Applies everything past the tree's checkpoint of `log`, `batch` events per transaction. */
export async function drive(
  db: Database.Database,
  tree: TreeHandler,
  log: EventLog,
  batch = 7,
): Promise<void> {
  const events: ProjectedEvent[] = [];
  for await (const projected of log.readProjected({ fromSeq: tree.checkpoint(log.memoryId) + 1 }))
    events.push(projected);
  for (let at = 0; at < events.length; at += batch)
    db.transaction(() => tree.apply(log.memoryId, events.slice(at, at + batch)))();
}

/** What each leaf of `log` binds, read from its stored form. */
export async function leafInputs(log: EventLog): Promise<LeafInput[]> {
  const inputs: LeafInput[] = [];
  for await (const projected of log.readProjected())
    inputs.push(leafInputOf(log.memoryId, projected));
  return inputs;
}

/**
 * The roots at sizes 0..n of the leaves, computed by memledger/verify with WebCrypto from the
 * leaf inputs alone (independent of the builder).
 */
export async function referenceRoots(inputs: readonly LeafInput[]): Promise<Uint8Array[]> {
  const hashes = await Promise.all(inputs.map((input) => leafHash(leafBytes(input))));
  const roots = [emptyRoot()];
  for (let n = 1; n <= hashes.length; n++) roots.push(await rootFromLeafHashes(hashes.slice(0, n)));
  return roots;
}

/** The root of all the leaves, computed as {@link referenceRoots} computes each. */
export async function referenceRoot(inputs: readonly LeafInput[]): Promise<Uint8Array> {
  return rootFromLeafHashes(await Promise.all(inputs.map((input) => leafHash(leafBytes(input)))));
}
