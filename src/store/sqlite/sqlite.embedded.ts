/**
 * What the SQLite store lends the read models that live in its file: the connection, a hook in
 * every append's transaction, and events read by seq for their pages, decoded with the store's
 * content codec as every read is.
 */
import type Database from 'better-sqlite3';
import type { Sequenced } from '../../core/index.js';
import type { WalScrubber } from '../../db/wal-scrub.js';
import type { AppendHook, EmbeddedDatabase } from '../event-log.port.js';
import { idKey, idOfKey, splitIdKeys } from '../../db/encodings.js';
import { LazyProjected } from '../codec.js';
import { decodeProjectedBatch, type ContentCodec } from '../content-codec.js';
import type { ProjectedEvent } from '../projection.port.js';
import type { StoredFields } from '../../core/index.js';
import { decodeTrustedPageRow, decodeTrustedRow } from './sqlite.codec.js';
import type { Statements } from './sqlite.statements.js';

/** What {@link embeddedDatabase} reads with. */
export interface EmbeddedParts {
  readonly db: Database.Database;
  readonly statements: Statements;
  /** The list every append transaction runs. */
  readonly hooks: AppendHook[];
  readonly typeOf: (code: number) => string;
  readonly path: string;
  readonly wal: WalScrubber;
  /** The store's content codec: events read for projections are decoded with it. */
  readonly codec: ContentCodec | undefined;
}

/** The store's {@link EmbeddedDatabase}. */
export function embeddedDatabase(parts: EmbeddedParts): EmbeddedDatabase {
  const { db, statements, hooks, typeOf, path, wal, codec } = parts;
  return {
    database: db,
    path,
    wal,
    onAppend: (hook) => void hooks.push(hook),
    projectedRange(memoryId, fromSeq, toSeq) {
      const where = `SQLite ${path} memory ${memoryId}`;
      const out: ProjectedEvent[] = [];
      if (toSeq < fromSeq) return out;
      for (const row of statements.rangeForwards.all(
        memoryId,
        fromSeq,
        toSeq,
        toSeq - fromSeq + 1,
      )) {
        // Parsed once for the event and its stored form; the stored form is made only for a
        // projection that reads it.
        const fields = JSON.parse(row[5]) as StoredFields;
        const type = typeOf(row[3]);
        const event = decodeTrustedPageRow(row, type, where, fields);
        out.push(new LazyProjected(event, type, row[4], fields));
      }
      return decodeProjectedBatch(codec, memoryId, out);
    },
    eventsAt: (memoryId, seqs) => {
      const where = `SQLite ${path} memory ${memoryId}`;
      const out = new Map<number, Sequenced>();
      if (seqs.length === 0) return out;
      // One indexed read for the whole page, not one per seq.
      for (const row of statements.eventsAt.all(memoryId, JSON.stringify(seqs)))
        out.set(row[0], decodeTrustedRow(row, typeOf(row[3]), where));
      if (!codec) return out;
      return new Map(codec.decode(memoryId, [...out.values()]).map((e) => [e.seq, e]));
    },
    seqsOf: (memoryId, ids) => {
      const out = new Map<string, number>();
      if (ids.length === 1) {
        const seq = statements.seqOfId.get(memoryId, idKey(ids[0]!));
        if (seq !== undefined) out.set(ids[0]!, seq);
        return out;
      }
      const { hex, other } = splitIdKeys(ids);
      for (const id of other) {
        const seq = statements.seqOfId.get(memoryId, id);
        if (seq !== undefined) out.set(id, seq);
      }
      if (hex.length > 0)
        for (const [key, seq] of statements.seqsOfIds.all(memoryId, JSON.stringify(hex)))
          out.set(idOfKey(key), seq);
      return out;
    },
  };
}
