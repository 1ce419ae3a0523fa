/**
 * The grant store's tables in the store's own SQLite file, created when missing. Insert-only like
 * the log: triggers abort any UPDATE or DELETE, so a grant or a revocation, once recorded, stays
 * on record. `seq` orders the records, so an instance reads only what is new.
 */

const appendOnly = (table: string) => `
CREATE TRIGGER IF NOT EXISTS ${table}_append_only_update BEFORE UPDATE ON ${table}
  BEGIN SELECT RAISE(ABORT, 'memledger access records are append-only'); END;
CREATE TRIGGER IF NOT EXISTS ${table}_append_only_delete BEFORE DELETE ON ${table}
  BEGIN SELECT RAISE(ABORT, 'memledger access records are append-only'); END;`;

/** The tables, and what tells whether they exist yet. */
export const ACCESS_TABLES = ['access_grants', 'access_revocations'] as const;

/** Creates the grant store's tables and triggers when missing. */
export const CREATE_ACCESS_TABLES = `
CREATE TABLE IF NOT EXISTS access_grants (
  seq           INTEGER PRIMARY KEY,
  key_id        TEXT NOT NULL UNIQUE,
  principal     TEXT NOT NULL,
  memories      TEXT NOT NULL,
  rights        TEXT NOT NULL,
  secret_sha256 TEXT NOT NULL UNIQUE,
  created_at    TEXT NOT NULL,
  created_by    TEXT
) STRICT;
CREATE TABLE IF NOT EXISTS access_revocations (
  seq        INTEGER PRIMARY KEY,
  key_id     TEXT NOT NULL UNIQUE REFERENCES access_grants (key_id),
  revoked_at TEXT NOT NULL,
  revoked_by TEXT
) STRICT;
${appendOnly('access_grants')}
${appendOnly('access_revocations')}
`;

/** A row of `access_grants`. */
export interface GrantRow {
  readonly seq: number;
  readonly key_id: string;
  readonly principal: string;
  readonly memories: string;
  readonly rights: string;
  readonly secret_sha256: string;
  readonly created_at: string;
  readonly created_by: string | null;
}

/** A row of `access_revocations`. */
export interface RevocationRow {
  readonly seq: number;
  readonly key_id: string;
  readonly revoked_at: string;
  readonly revoked_by: string | null;
}
