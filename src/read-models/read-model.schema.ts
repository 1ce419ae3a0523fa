/**
 * The read-model tables. They are derived data, never the record: every row can be rebuilt
 * from the log. Their layout version is the runtime's to record and their tables the runtime's
 * to drop (src/projections/layout-upgrade.ts); this code creates a layout's tables under the
 * names it is given (read-model.names.ts), so it serves as `rm_items` or `rm_items__v9` alike.
 * They live in the SQLite store's own file (written in each append's transaction) or in a
 * local file beside an EventStoreDB client; the layout is the same in both but for what a file
 * of their own must add: the events (`rm_payloads`) and an index by id (`rm_items_by_id`; in
 * the store's file, the log's own index finds items by id, see item-seqs.ts).
 *
 * Shaped for "as of seq n" queries by index rather than by folding:
 * - `rm_items`: every event by (memory, seq) with its kind and id, and for content the seq of
 *   the Deletion that removed it, so "visible at n" is `seq <= n AND (deleted_seq IS NULL OR
 *   deleted_seq > n)` on one index;
 * - running totals on every `rm_items` row (the counts right after that seq), so counts as of n
 *   are one primary-key lookup (the row at the greatest seq <= n) and cost no row of their own:
 *   a separate totals table was one more B-tree insert per content event. `rm_item_totals` is a
 *   view of them, so the queries read totals by name. (Not `rm_totals`: layout 4, memledger
 *   0.2.0, had a table of that name, and 0.2.0 drops only tables before building its layout, so a
 *   view of that name would stop it re-creating its table after a downgrade);
 * - `rm_recall_uses`: (item, recall seq) pairs, so recall stats as of n are an indexed aggregate;
 * - `rm_payloads`: the events themselves, only where the log is not in the same file (an erased
 *   item's row is rewritten to its erasure marker: a cache never outlives the words it copied).
 * - `erased_seq` on `rm_items`: the seq of the Erasure that destroyed an item's words.
 */
import type Database from 'better-sqlite3';
import { readModelNames, type ReadModelNames } from './read-model.names.js';
import { searchSchema } from './search.read-model.js';

function coreSchema(n: ReadModelNames): string {
  return `
-- A memory's checkpoint (its last applied seq and that event's id) is its last ${n.rm_items} row:
-- every applied event has one, so no row here is rewritten by every append.
CREATE TABLE IF NOT EXISTS ${n.rm_memories} (
  mem           INTEGER PRIMARY KEY,
  memory_id     TEXT    NOT NULL UNIQUE,
  -- The search index follows the other read models in batches, before each search: the last
  -- seq it has indexed (<= checkpoint).
  search_checkpoint INTEGER NOT NULL DEFAULT -1
) STRICT;

CREATE TABLE IF NOT EXISTS ${n.rm_items} (
  mem         INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  kind        INTEGER NOT NULL,
  id          TEXT    NOT NULL,
  deleted_seq INTEGER,
  erased_seq  INTEGER,
  -- Running totals right after this seq.
  messages          INTEGER NOT NULL,
  documents         INTEGER NOT NULL,
  deleted_messages  INTEGER NOT NULL,
  deleted_documents INTEGER NOT NULL,
  PRIMARY KEY (mem, seq)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ${n.rm_items_content} ON ${n.rm_items} (mem, kind, seq, deleted_seq)
  WHERE kind < 2;
CREATE INDEX IF NOT EXISTS ${n.rm_items_deleted} ON ${n.rm_items} (mem, deleted_seq, seq)
  WHERE deleted_seq IS NOT NULL;
-- The erased items as of n (whole-state reads): without it, a scan of every row of the memory.
CREATE INDEX IF NOT EXISTS ${n.rm_items_erased} ON ${n.rm_items} (mem, erased_seq, seq)
  WHERE erased_seq IS NOT NULL;

CREATE VIEW IF NOT EXISTS ${n.rm_item_totals} AS
  SELECT mem, seq, messages, documents, deleted_messages, deleted_documents FROM ${n.rm_items};

CREATE TABLE IF NOT EXISTS ${n.rm_recall_uses} (
  mem        INTEGER NOT NULL,
  item_seq   INTEGER NOT NULL,
  recall_seq INTEGER NOT NULL,
  recall_ts  TEXT    NOT NULL,
  PRIMARY KEY (mem, item_seq, recall_seq)
) STRICT, WITHOUT ROWID;
`;
}

/** Only where the log is not in the same file: the events themselves, and an index by id. */
function ownFileSchema(n: ReadModelNames): string {
  return `
-- Where the log is in the same file, its own index by (memory, id) finds items (item-seqs.ts).
CREATE UNIQUE INDEX IF NOT EXISTS ${n.rm_items_by_id} ON ${n.rm_items} (mem, id);
CREATE TABLE IF NOT EXISTS ${n.rm_payloads} (
  mem     INTEGER NOT NULL,
  seq     INTEGER NOT NULL,
  type    TEXT    NOT NULL,
  payload TEXT    NOT NULL,
  PRIMARY KEY (mem, seq)
) STRICT, WITHOUT ROWID;
`;
}

/**
 * Creates one layout's read-model and search tables where missing (`names`: the tables' own
 * names without it). A file that holds them already is left untouched: opening writes nothing.
 */
export function ensureReadModelSchema(
  db: Database.Database,
  withPayloads: boolean,
  names: ReadModelNames = readModelNames(),
): void {
  const complete = () => {
    const has = (table: string) =>
      db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table);
    return (
      has(names.rm_items) && has(names.search_fts) && (!withPayloads || has(names.rm_payloads))
    );
  };
  if (complete()) return;
  db.transaction(() => {
    if (complete()) return; // another process did it while this one waited for the lock
    db.exec(coreSchema(names));
    db.exec(searchSchema(names));
    if (withPayloads) db.exec(ownFileSchema(names));
  }).immediate();
}
