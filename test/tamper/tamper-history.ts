/**
 * What the tampering specs tamper with: a memory of ten events of every kind written through the
 * facade on a sealed store (content encrypted at rest) whose log signs its checkpoints, and the
 * checkpoint note an auditor saved at the end. The cases are one table, applied to a SQLite file,
 * to EventStoreDB streams and to an export, each in its own terms.
 */
import type { Memledger } from '../../src/memory/index.js';
import { generateSigner, type LogIdentity } from '../../src/tlog/index.js';

/** The memory every tampering spec writes. */
export const AUDITED = 'audited';

/** The log's key (the operator's) and its identity. */
export const logKey = generateSigner('tamper.test');
export const identity: LogIdentity = { name: logKey.name, signer: logKey, witnesses: [] };

/** Words that must never appear in a stored-form export (they are sealed). */
export const CANARY = 'canary-words-7f3a';

/**
 * Writes the ten events (seq 0..9) and returns the checkpoint note of size 10, as an auditor
 * saves it. seq 3 and 6 are recalls (plain query text), 7 deletes seq 5, the rest is content.
 */
export async function writeHistory(memledger: Memledger): Promise<string> {
  const memory = await memledger.memory(AUDITED);
  const say = (content: string) => memory.recordMessage({ speaker: 'user', content });
  const zero = await say(`fact zero ${CANARY}`);
  await say('fact one');
  await memory.addDocument({ name: 'runbook.md', text: 'Rotate the deploy key on Fridays.' });
  await memory.recordRecall({ query: 'deploy key', recalled: [zero.id] });
  await say('fact four');
  const five = await say('fact five');
  await memory.recordRecall({ query: 'another question', recalled: [zero.id] });
  await memory.deleteContent({ targets: [five.id], reason: 'asked to forget' });
  await say('fact eight');
  await say('fact nine');
  const checkpoint = await memory.checkpoint();
  if (checkpoint.size !== 10 || !checkpoint.signed) throw new Error('unexpected checkpoint');
  return checkpoint.note;
}

/** One stored event as a tamperer sees it: its seq, id, type, version and stored fields. */
export interface StoredRow {
  seq: number;
  id: string;
  type: string;
  version: number;
  body: Record<string, unknown>;
}

/** A way to tamper, and the violation `memledger verify --checkpoint` must report. */
export interface TamperCase {
  readonly name: string;
  /** The rows after tampering, from the rows before (seq order, seqs as stored). */
  readonly tamper: (rows: StoredRow[]) => StoredRow[];
  /** What verify prints for a store whose tree the server kept (the seq is named). */
  readonly named: RegExp;
}

const copy = (rows: StoredRow[]) => rows.map((row) => ({ ...row, body: { ...row.body } }));
const forgedId = '0193b000-0000-7000-8000-00000000f0f0';

/** The seven tamperings of issue 30, item 7 (the eighth, rewrite and re-sign, has its own spec). */
export const TAMPER_CASES: readonly TamperCase[] = [
  {
    name: 'edits one payload byte',
    tamper(rows) {
      const out = copy(rows);
      out[3]!.body.query = 'deploy kex';
      return out;
    },
    named: /violation \[LEAF_DIFFERS\] at seq 3:/,
  },
  {
    name: 'changes a timestamp',
    tamper(rows) {
      const out = copy(rows);
      out[4]!.body.timestamp = '2020-01-01T00:00:00.000Z';
      return out;
    },
    named: /violation \[LEAF_DIFFERS\] at seq 4:/,
  },
  {
    name: 'deletes a row',
    tamper: (rows) => copy(rows).filter((row) => row.seq !== 5),
    named: /violation \[(LOG_GAP|LEAF_DIFFERS)\] at seq 5:/,
  },
  {
    name: 'swaps two events',
    tamper(rows) {
      const out = copy(rows);
      [out[2]!.seq, out[6]!.seq] = [out[6]!.seq, out[2]!.seq];
      return out.sort((a, b) => a.seq - b.seq);
    },
    named: /violation \[LEAF_DIFFERS\] at seq 2:/,
  },
  {
    name: 'truncates the tail',
    tamper: (rows) => copy(rows).filter((row) => row.seq < 7),
    named: /violation \[LOG_TRUNCATED\] at seq 7:/,
  },
  {
    name: 'inserts a forged event',
    tamper(rows) {
      const out = copy(rows);
      const forged = { ...out[4]!, id: forgedId, body: { ...out[4]!.body, speaker: 'admin' } };
      out.splice(4, 0, forged);
      return out.map((row, seq) => ({ ...row, seq }));
    },
    named: /violation \[LEAF_DIFFERS\] at seq 4:/,
  },
  {
    name: 'replaces a sealed payload',
    tamper(rows) {
      const out = copy(rows);
      if (typeof out[0]!.body.sealed !== 'string') throw new Error('seq 0 is not sealed');
      out[1]!.body.sealed = out[0]!.body.sealed;
      return out;
    },
    named: /violation \[LEAF_DIFFERS\] at seq 1:/,
  },
];
