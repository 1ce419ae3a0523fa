/**
 * The vector tables in the read-model file. Each (model, dimensions, quantization, cells) is a
 * version with tables of its own, named by a digest of them, so a model change builds a new
 * version beside the old one and never mixes vectors of two models. A version holds:
 * - `<key>_vec`, a sqlite-vec `vec0` table: one row per item, rowid `vmem * 2^40 + seq`,
 *   partitioned by memory (a KNN reads only its memory's chunks) and, in a version with cells,
 *   by cell (vector-cells.ts: a KNN reads the cells nearest its query), with the item's visibility
 *   window as metadata filtered inside the KNN: `written` (its seq) and `gone` (the seq of the
 *   Deletion that removed it, or {@link NEVER}). Quantized versions search a `bit` or `int8` copy
 *   there and keep the float vectors for re-scoring in `<key>_floats`, a vec0 table of small
 *   chunks by the same rowid: re-scoring reads a hundred candidates by key, and a read within a
 *   chunk of 512 vectors walks far into its blob where one of 8 is read at once.
 * - `<key>_keys`: each row's content digest, indexed, so an item whose text is already embedded
 *   (a rebuild, the same text in another memory) copies that vector instead of asking the model.
 *
 * Shared by every version: the registry (`vec_versions`), the memories (`vec_memories`: keys of
 * their own, so the vectors survive a rebuild of the other read models, whose keys may change),
 * and each version's progress per memory (`vec_progress`). The tables are named `vec_*`: the
 * read models' layout changes (which drop `rm_*` and `search_*`) leave them alone.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { MemoryError } from '../core/index.js';
import { writing } from '../db/transactions.js';

/** How the vectors a KNN reads are stored: as floats, or quantized with floats kept for re-scoring. */
export type Quantization = 'none' | 'int8' | 'binary';

/** Every quantization, for validation. */
export const QUANTIZATIONS: readonly Quantization[] = ['none', 'int8', 'binary'];

/**
 * The quantization of a model's version when the options name none: float vectors, whose top k
 * is the exact one. Binary and int8 are a choice to make after measuring recall with the model
 * (`npm run bench -- --only vectors`): on real-text notes and learned vectors binary kept 0.89-0.91
 * of the exact top 10 (0.95 with twice the candidates, at the latency target's edge: BENCHMARKS.md),
 * below the 0.95 a default must hold.
 */
export const DEFAULT_QUANTIZATION: Quantization = 'none';

/** `quantization` if it is one (the default when undefined); `VALIDATION_FAILED` otherwise. */
export function checkedQuantization(quantization: unknown): Quantization {
  if (quantization === undefined) return DEFAULT_QUANTIZATION;
  if (QUANTIZATIONS.includes(quantization as Quantization)) return quantization as Quantization;
  throw new MemoryError(
    'VALIDATION_FAILED',
    `Invalid quantization ${JSON.stringify(quantization)}: must be none, int8 or binary.`,
    { issues: [{ path: 'quantization', message: 'must be none, int8 or binary' }] },
  );
}

/**
 * The layout of a version's tables; another layout is a new version (built beside, its vectors
 * copied from the same model's version of the old layout). 2: quantized floats in `<key>_floats`.
 */
export const VECTOR_LAYOUT = 2;

/**
 * The layout of binary versions, whose sign bits are taken around the version's centre from 3 on
 * (binary-centre.ts); the others stay where they are.
 */
export const BINARY_LAYOUT = 3;

/** `gone` of an item no Deletion removed. */
export const NEVER = 2n ** 62n;

/** Rows of one memory span `vmem * 2^40` up to the next memory; seqs stay below 2^40. */
export const SEQ_SPAN = 2n ** 40n;

/** One version: the model, its dimensions and how its vectors are stored. */
export interface VectorVersion {
  /** The prefix of its tables. */
  readonly key: string;
  readonly model: string;
  readonly dimensions: number;
  readonly quantization: Quantization;
  /** Cells a large memory's rows are split into (vector-cells.ts); 0: none, every KNN reads all. */
  readonly cells: number;
}

/** The version of `model` with `dimensions` stored with `quantization`, in `cells` cells. */
export function vectorVersion(
  model: string,
  dimensions: number,
  quantization: Quantization,
  cells = 0,
): VectorVersion {
  const layout = quantization === 'binary' ? BINARY_LAYOUT : VECTOR_LAYOUT;
  // Versions without cells keep the keys they had before cells existed.
  const celled = cells > 0 ? `\0cells ${cells}` : '';
  const digest = createHash('sha256')
    .update(`${layout}\0${model}\0${dimensions}\0${quantization}${celled}`)
    .digest('hex');
  return { key: `vec_${digest.slice(0, 16)}`, model, dimensions, quantization, cells };
}

/** Whether `version` takes its sign bits around a centre: binary of today's layout. */
export function centredVersion(version: VectorVersion): boolean {
  const { key, model, dimensions, quantization, cells } = version;
  return (
    quantization === 'binary' && key === vectorVersion(model, dimensions, quantization, cells).key
  );
}

/** The bytes of a float32 vector, as sqlite-vec reads them. */
export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A float32 vector of its bytes (a copy: better-sqlite3's buffers may share memory). */
export function vectorOfBytes(bytes: Buffer): Float32Array {
  return new Float32Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
}

/** The rowid of the item at `seq` of the memory `vmem`. */
export function rowKey(vmem: number, seq: number): bigint {
  return BigInt(vmem) * SEQ_SPAN + BigInt(seq);
}

/** The first and last rowid memory `vmem`'s rows may have. */
export function memoryKeyRange(vmem: number): [bigint, bigint] {
  return [rowKey(vmem, 0), rowKey(vmem + 1, 0) - 1n];
}

/** The memory (`vmem`) of a rowid. */
export function vmemOfKey(key: bigint): number {
  return Number(key / SEQ_SPAN);
}

/** The seq of a rowid. */
export function seqOfKey(key: bigint | number): number {
  return Number(BigInt(key) % SEQ_SPAN);
}

const SHARED_SCHEMA = `
CREATE TABLE IF NOT EXISTS vec_versions (
  key          TEXT    PRIMARY KEY,
  model        TEXT    NOT NULL,
  dimensions   INTEGER NOT NULL,
  quantization TEXT    NOT NULL,
  created_at   TEXT    NOT NULL,
  cells        INTEGER NOT NULL DEFAULT 0
) STRICT;
-- The rows naming the cells of a memory's rows in a version with cells (vector-cells.ts).
CREATE TABLE IF NOT EXISTS vec_cells (
  key    TEXT    NOT NULL,
  vmem   INTEGER NOT NULL,
  cell   INTEGER NOT NULL,
  medoid INTEGER NOT NULL,
  PRIMARY KEY (key, vmem, cell)
) STRICT, WITHOUT ROWID;
-- A binary version's centre (binary-centre.ts) and how many vectors it averaged.
CREATE TABLE IF NOT EXISTS vec_centres (
  key    TEXT    PRIMARY KEY,
  centre BLOB    NOT NULL,
  sample INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS vec_memories (
  vmem      INTEGER PRIMARY KEY,
  memory_id TEXT    NOT NULL UNIQUE
) STRICT;
-- Per version and memory: the seq its rows are complete through (and that event's id, to tell
-- a log restored from elsewhere), the seq its windows are current through, and whether it has
-- once caught up with the memory (a version still building does not serve).
CREATE TABLE IF NOT EXISTS vec_progress (
  key     TEXT    NOT NULL,
  vmem    INTEGER NOT NULL,
  seq     INTEGER NOT NULL,
  id      TEXT,
  windows INTEGER NOT NULL,
  ready   INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key, vmem)
) STRICT, WITHOUT ROWID;
`;

/** vec0's chunk: rows allocated at once per memory; smaller chunks slow the KNN down. */
const CHUNK_SIZE = 512;
/**
 * The chunk of a version with cells: each cell of a memory holds a chunk of its own, whose empty
 * end is space the version pays per cell, so the chunks are smaller; a float row is 32 times a
 * bit row, so float chunks are smaller still (the space and time of each: BENCHMARKS.md, "Float
 * cells' chunks").
 */
const CELL_CHUNK_SIZE = { float: 64, quantized: 256 };
/**
 * The chunk of a quantized version's float copy, which is only read by key: vec0 reads a row
 * from within its chunk's blob, so small chunks make a read short, while still packing the
 * vectors densely (a plain table of one vector a row leaves pages a quarter empty).
 */
const FLOATS_CHUNK_SIZE = 8;

/** The rows of a chunk of a version's `vec0` table (a table made before keeps its own). */
function chunkSize(quantization: Quantization, cells: number): number {
  if (cells === 0) return CHUNK_SIZE;
  return quantization === 'none' ? CELL_CHUNK_SIZE.float : CELL_CHUNK_SIZE.quantized;
}

/** Creates the shared tables and those of `version` when missing, and registers the version. */
export function ensureVectorTables(db: Database.Database, version: VectorVersion): void {
  const { key, dimensions, quantization, cells } = version;
  const vectors =
    quantization === 'none'
      ? `emb float[${dimensions}]`
      : `emb ${quantization === 'int8' ? 'int8' : 'bit'}[${dimensions}]`;
  if (quantization === 'binary' && dimensions % 8 !== 0) {
    throw new MemoryError(
      'VALIDATION_FAILED',
      `Binary quantization needs dimensions divisible by 8, got ${dimensions}.`,
      { issues: [{ path: 'quantization', message: 'binary needs dimensions divisible by 8' }] },
    );
  }
  const partitions =
    cells > 0
      ? 'vmem integer partition key, cell integer partition key'
      : 'vmem integer partition key';
  db.transaction(() => {
    db.exec(SHARED_SCHEMA);
    addCellsColumn(db);
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${key}_vec USING vec0(
      ${partitions}, ${vectors}, written integer, gone integer,
      chunk_size=${chunkSize(quantization, cells)})`);
    // vec0 finds a partition's chunks by scanning its chunk table: every memory's, for each KNN
    // and each cell. An index on the partition columns makes that a seek.
    const partitionColumns = cells > 0 ? 'partition00, partition01' : 'partition00';
    db.exec(`CREATE INDEX IF NOT EXISTS ${key}_vec_chunks_partition
      ON ${key}_vec_chunks (${partitionColumns})`);
    db.exec(`CREATE TABLE IF NOT EXISTS ${key}_keys (
      key INTEGER PRIMARY KEY, digest BLOB NOT NULL) STRICT`);
    db.exec(`CREATE INDEX IF NOT EXISTS ${key}_keys_digest ON ${key}_keys (digest)`);
    if (quantization !== 'none')
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${key}_floats USING vec0(
        v float[${dimensions}], chunk_size=${FLOATS_CHUNK_SIZE})`);
    db.prepare(
      `INSERT OR IGNORE INTO vec_versions (key, model, dimensions, quantization, created_at, cells)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(key, version.model, dimensions, quantization, new Date().toISOString(), cells);
  }).immediate();
}

/** `vec_versions.cells` in a file written before versions had cells. */
function addCellsColumn(db: Database.Database): void {
  if (!hasCellsColumn(db))
    db.exec('ALTER TABLE vec_versions ADD COLUMN cells INTEGER NOT NULL DEFAULT 0');
}

function hasCellsColumn(db: Database.Database): boolean {
  const columns = db.prepare<[], { name: string }>('PRAGMA table_info(vec_versions)').all();
  return columns.some((column) => column.name === 'cells');
}

/** Every registered version, oldest first. */
export function registeredVersions(db: Database.Database): VectorVersion[] {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'vec_versions'")
    .get();
  if (!exists) return [];
  const cells = hasCellsColumn(db) ? 'cells' : '0 AS cells';
  return db
    .prepare<[], VectorVersion>(
      `SELECT key, model, dimensions, quantization, ${cells} FROM vec_versions
       ORDER BY created_at, key`,
    )
    .all();
}

/** Drops a version's tables and progress (a retired model). */
export function dropVectorVersion(db: Database.Database, key: string): void {
  if (!/^vec_[0-9a-f]{16}$/.test(key)) throw new Error(`Not a vector version key: ${key}`);
  writing(db, () => {
    db.exec(`DROP TABLE IF EXISTS ${key}_vec`);
    db.exec(`DROP TABLE IF EXISTS ${key}_keys`);
    db.exec(`DROP TABLE IF EXISTS ${key}_floats`);
    db.prepare('DELETE FROM vec_progress WHERE key = ?').run(key);
    db.prepare('DELETE FROM vec_centres WHERE key = ?').run(key);
    db.prepare('DELETE FROM vec_cells WHERE key = ?').run(key);
    db.prepare('DELETE FROM vec_versions WHERE key = ?').run(key);
  });
}
