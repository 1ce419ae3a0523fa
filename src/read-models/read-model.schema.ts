/**
 * The read-model tables. They are derived data, never the record: every row can be rebuilt
 * from the log, so a file of another layout version is dropped and rebuilt, never trusted.
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
import { SEARCH_SCHEMA } from './search.read-model.js';

/** The layout version this code writes; any other version is rebuilt from the log. */
export const READ_MODEL_VERSION = '8';

const CORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS rm_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- A memory's checkpoint (its last applied seq and that event's id) is its last rm_items row:
-- every applied event has one, so no row here is rewritten by every append.
CREATE TABLE IF NOT EXISTS rm_memories (
  mem           INTEGER PRIMARY KEY,
  memory_id     TEXT    NOT NULL UNIQUE,
  -- The search index follows the other read models in batches, before each search: the last
  -- seq it has indexed (<= checkpoint).
  search_checkpoint INTEGER NOT NULL DEFAULT -1
) STRICT;

CREATE TABLE IF NOT EXISTS rm_items (
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
CREATE INDEX IF NOT EXISTS rm_items_content ON rm_items (mem, kind, seq, deleted_seq) WHERE kind < 2;
CREATE INDEX IF NOT EXISTS rm_items_deleted ON rm_items (mem, deleted_seq, seq)
  WHERE deleted_seq IS NOT NULL;
-- The erased items as of n (whole-state reads): without it, a scan of every row of the memory.
CREATE INDEX IF NOT EXISTS rm_items_erased ON rm_items (mem, erased_seq, seq)
  WHERE erased_seq IS NOT NULL;

CREATE VIEW IF NOT EXISTS rm_item_totals AS
  SELECT mem, seq, messages, documents, deleted_messages, deleted_documents FROM rm_items;

CREATE TABLE IF NOT EXISTS rm_recall_uses (
  mem        INTEGER NOT NULL,
  item_seq   INTEGER NOT NULL,
  recall_seq INTEGER NOT NULL,
  recall_ts  TEXT    NOT NULL,
  PRIMARY KEY (mem, item_seq, recall_seq)
) STRICT, WITHOUT ROWID;
`;

/** Only where the log is not in the same file: the events themselves, and an index by id. */
const OWN_FILE_SCHEMA = `
-- Where the log is in the same file, its own index by (memory, id) finds items (item-seqs.ts).
CREATE UNIQUE INDEX IF NOT EXISTS rm_items_by_id ON rm_items (mem, id);
CREATE TABLE IF NOT EXISTS rm_payloads (
  mem     INTEGER NOT NULL,
  seq     INTEGER NOT NULL,
  type    TEXT    NOT NULL,
  payload TEXT    NOT NULL,
  PRIMARY KEY (mem, seq)
) STRICT, WITHOUT ROWID;
`;

/**
 * Creates the read-model tables, first dropping every read-model table of another layout
 * version (they are rebuilt from the log on the next catch-up of each memory). A file already
 * at this version is left untouched: opening writes nothing.
 */
export function ensureReadModelSchema(db: Database.Database, withPayloads: boolean): void {
  const current = () => {
    const has = (table: string) =>
      db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table);
    if (!has('rm_meta') || (withPayloads && !has('rm_payloads'))) return false;
    const version = db.prepare("SELECT value FROM rm_meta WHERE key = 'version'").pluck().get();
    return version === READ_MODEL_VERSION;
  };
  if (current()) return;
  db.transaction(() => {
    if (current()) return; // another process did it while this one waited for the lock
    dropReadModels(db);
    db.exec(
      'CREATE TABLE IF NOT EXISTS rm_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT',
    );
    db.exec(CORE_SCHEMA);
    db.exec(SEARCH_SCHEMA);
    if (withPayloads) db.exec(OWN_FILE_SCHEMA);
    db.prepare("INSERT OR REPLACE INTO rm_meta (key, value) VALUES ('version', ?)").run(
      READ_MODEL_VERSION,
    );
  }).immediate();
}

/**
 * Drops every read-model table and view (names starting `rm_` or `search_`); the log's tables
 * are never touched.
 */
const OWNED = "(name LIKE 'rm\\_%' ESCAPE '\\' OR name LIKE 'search\\_%' ESCAPE '\\')";

export function dropReadModels(db: Database.Database): void {
  const tables = db
    .prepare<[], string>(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND ${OWNED} AND sql NOT LIKE 'CREATE VIRTUAL%'`,
    )
    .pluck()
    .all();
  const virtual = db
    .prepare<[], string>(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND ${OWNED} AND sql LIKE 'CREATE VIRTUAL%'`,
    )
    .pluck()
    .all();
  const views = db
    .prepare<[], string>(`SELECT name FROM sqlite_schema WHERE type = 'view' AND ${OWNED}`)
    .pluck()
    .all();
  for (const name of views) db.exec(`DROP VIEW IF EXISTS "${name}"`);
  // Virtual tables first: dropping one also drops its shadow tables.
  for (const name of virtual) db.exec(`DROP TABLE IF EXISTS "${name}"`);
  for (const name of tables) db.exec(`DROP TABLE IF EXISTS "${name}"`);
}
