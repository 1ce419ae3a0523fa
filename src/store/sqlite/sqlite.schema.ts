/**
 * The SQLite file layout, version 3 (version 1 was memledger 0.1.0's, version 2 had no
 * `event_erasures`: see sqlite.migrate.ts).
 *
 * - `event_log` is the log: a rowid table (rows up to a page stay on their page, where a
 *   WITHOUT ROWID row of ~1 KB spilled onto a mostly empty overflow page), one row per event:
 *   the memory's integer key, seq, the id as 16 bytes, the type as a small code, the event
 *   schema version it was written in, and the JSON of the remaining fields.
 * - `memories` maps each memory id to its key; `event_types` names the type codes, so the file
 *   reads on its own with any SQLite tool.
 * - `event_deletions` is the guard's index of deleted content: target row -> Deletion row;
 *   `event_erasures` the same for erased content: target row -> Erasure row.
 * - `events` is a view in the 0.1.0 shape (`memory_id, seq, id, type, payload`), for people
 *   and tools reading the file; an INSERT into it is stored in the layout above.
 *
 * Every table of the log is insert-only: triggers abort any UPDATE or DELETE, so even a
 * hand-written statement cannot rewrite history.
 */
import { UNVERSIONED } from '../../core/index.js';
import { EVENT_TYPE_CODES, FOREIGN_TYPE_CODES } from './sqlite.codec.js';

/** The layout version this code writes and understands. */
export const SQLITE_SCHEMA_VERSION = '3';

const appendOnly = (table: string, what: string) => `
CREATE TRIGGER IF NOT EXISTS ${table}_append_only_update BEFORE UPDATE ON ${table}
  BEGIN SELECT RAISE(ABORT, 'memledger ${what} are append-only'); END;
CREATE TRIGGER IF NOT EXISTS ${table}_append_only_delete BEFORE DELETE ON ${table}
  BEGIN SELECT RAISE(ABORT, 'memledger ${what} are append-only'); END;`;

/** The tables, indexes and triggers of the log (no view: a 0.1.0 file still has a table `events`). */
export const CREATE_LOG_TABLES = `
CREATE TABLE IF NOT EXISTS memledger_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS memories (
  key       INTEGER PRIMARY KEY,
  memory_id TEXT    NOT NULL UNIQUE
) STRICT;

CREATE TABLE IF NOT EXISTS event_types (
  code INTEGER PRIMARY KEY,
  type TEXT    NOT NULL UNIQUE
) STRICT;

-- id: 16 bytes for a canonical UUID; text only for a foreign row's id that is not one.
CREATE TABLE IF NOT EXISTS event_log (
  pos     INTEGER PRIMARY KEY,
  memory  INTEGER NOT NULL REFERENCES memories (key),
  seq     INTEGER NOT NULL,
  id      ANY     NOT NULL,
  type    INTEGER NOT NULL,
  version INTEGER NOT NULL,
  payload TEXT    NOT NULL
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS event_log_by_seq ON event_log (memory, seq);
CREATE UNIQUE INDEX IF NOT EXISTS event_log_by_id ON event_log (memory, id);

CREATE TABLE IF NOT EXISTS event_deletions (
  target_pos   INTEGER PRIMARY KEY REFERENCES event_log (pos),
  deletion_pos INTEGER NOT NULL REFERENCES event_log (pos)
) STRICT;
-- Which Erasure destroyed which content's words (the guard's ALREADY_ERASED; layout 3).
CREATE TABLE IF NOT EXISTS event_erasures (
  target_pos  INTEGER PRIMARY KEY REFERENCES event_log (pos),
  erasure_pos INTEGER NOT NULL REFERENCES event_log (pos)
) STRICT;
${appendOnly('memories', 'memories')}
${appendOnly('event_types', 'event types')}
${appendOnly('event_log', 'events')}
${appendOnly('event_deletions', 'deletions')}
${appendOnly('event_erasures', 'erasures')}

INSERT OR IGNORE INTO event_types (code, type) VALUES
  ${Object.entries(EVENT_TYPE_CODES)
    .map(([type, code]) => `(${code}, '${type}')`)
    .join(', ')};
`;

const hex = (n: number) => '[0-9a-f]'.repeat(n);
const CANONICAL_ID_GLOB = [8, 4, 4, 4, 12].map(hex).join('-');

/** SQL for the `idKey` (sqlite.codec.ts) of the id text `x` (the same rule, so both agree on every id). */
export const idKeySql = (x: string) =>
  `CASE WHEN ${x} GLOB '${CANONICAL_ID_GLOB}' THEN unhex(replace(${x}, '-', '')) ELSE ${x} END`;

/** SQL for the id text of a stored id `x`. */
const idTextSql = (x: string) =>
  `CASE WHEN typeof(${x}) = 'blob' THEN lower(substr(hex(${x}), 1, 8) || '-' || substr(hex(${x}), 9, 4) || '-' || substr(hex(${x}), 13, 4) || '-' || substr(hex(${x}), 17, 4) || '-' || substr(hex(${x}), 21)) ELSE ${x} END`;

/**
 * SQL for a 0.1.0 payload without the `id` and `kind` its columns now hold: each is removed
 * only when it equals the column, so a row whose payload disagreed keeps it and decodes as before.
 */
export const payloadSql = (payload: string, id: string, type: string) => {
  const idMatches = `json_extract(${payload}, '$.id') IS ${id}`;
  const kindMatches = `json_extract(${payload}, '$.kind') IS lower(${type})`;
  return `CASE WHEN NOT (json_valid(${payload}) AND json_type(${payload}) = 'object') THEN ${payload}
     WHEN ${idMatches} AND ${kindMatches} THEN json_remove(${payload}, '$.id', '$.kind')
     WHEN ${idMatches} THEN json_remove(${payload}, '$.id')
     WHEN ${kindMatches} THEN json_remove(${payload}, '$.kind')
     ELSE ${payload} END`;
};

/** SQL for the code of the type `type`, registered as a foreign type when memledger has none. */
export const registerTypeSql = (type: string) => `
  INSERT INTO event_types (code, type)
    SELECT COALESCE((SELECT MAX(code) + 1 FROM event_types WHERE code >= ${FOREIGN_TYPE_CODES}), ${FOREIGN_TYPE_CODES}), ${type}
     WHERE NOT EXISTS (SELECT 1 FROM event_types WHERE type = ${type})`;

/**
 * The 0.1.0-shaped view `events`: read it with any tool; an insert is stored in the log tables.
 * Its payload is 0.1.0's text again (a payload that kept its own id or kind, see {@link payloadSql},
 * repeats the key, and its own value, last, is the one a JSON parser keeps).
 */
export const CREATE_EVENTS_VIEW = `
CREATE VIEW IF NOT EXISTS events (memory_id, seq, id, type, payload) AS
  SELECT m.memory_id, e.seq, ${idTextSql('e.id')}, t.type,
         '{"kind":' || json_quote(lower(t.type)) || ',"id":' || json_quote(${idTextSql('e.id')})
           || CASE WHEN e.payload = '{}' THEN '}' ELSE ',' || substr(e.payload, 2) END
    FROM event_log e
    JOIN memories m ON m.key = e.memory
    LEFT JOIN event_types t ON t.code = e.type;

CREATE TRIGGER IF NOT EXISTS events_insert INSTEAD OF INSERT ON events BEGIN
  INSERT OR IGNORE INTO memories (memory_id) VALUES (NEW.memory_id);
  ${registerTypeSql('NEW.type')};
  INSERT INTO event_log (memory, seq, id, type, version, payload) VALUES (
    (SELECT key FROM memories WHERE memory_id = NEW.memory_id),
    NEW.seq,
    ${idKeySql('NEW.id')},
    (SELECT code FROM event_types WHERE type = NEW.type),
    ${UNVERSIONED},
    ${payloadSql('NEW.payload', 'NEW.id', 'NEW.type')});
END;
CREATE TRIGGER IF NOT EXISTS events_append_only_update INSTEAD OF UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'memledger events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete INSTEAD OF DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'memledger events are append-only'); END;
`;

/** Creates the whole layout when missing (a new file) and records its version. */
export const CREATE_SCHEMA = `${CREATE_LOG_TABLES}
${CREATE_EVENTS_VIEW}
INSERT OR IGNORE INTO memledger_meta (key, value) VALUES ('schema_version', '${SQLITE_SCHEMA_VERSION}');
`;
