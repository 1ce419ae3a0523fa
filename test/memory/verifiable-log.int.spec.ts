/**
 * The facade's verifiable log on a SQLite file and in memory: signed checkpoints that verify
 * under the log's key with origin `<log name>/<memory>`, inclusion proofs whose leaf is each
 * event's, consistency proofs between checkpoints, earlier sizes signed again to the same
 * note, witnesses' cosignatures attached and kept; unsigned roots without a key; bad sizes and
 * seqs refused with their codes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemledger, type Memledger } from '../../src/memory/index.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { generateSigner, type LogIdentity } from '../../src/tlog/index.js';
import { SIGNATURE_TYPE } from '../../src/verify/index.js';
import {
  parseCheckpoint,
  parseConsistencyProof,
  parseInclusionProof,
  parseVerifierKey,
  verifyCheckpoint,
  verifyCheckpointConsistency,
  verifyLeafInclusion,
} from '../../src/verify/index.js';
import { Witness, WitnessState, startWitnessServer } from '../../src/tlog/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memledger-vlog-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const signer = generateSigner('log.test');
const signed: LogIdentity = { name: signer.name, signer, witnesses: [] };
let n = 0;

function open(log: LogIdentity = signed, kind: 'sqlite' | 'in-memory' = 'sqlite'): Memledger {
  const store =
    kind === 'sqlite' ? openSqliteStore({ path: join(dir, `v-${++n}.db`) }) : openInMemoryStore();
  return openMemledger({ store, log, onNotice: () => undefined });
}

async function verified(note: string, memory = 'default') {
  const log = await parseVerifierKey(signer.vkey, SIGNATURE_TYPE.ed25519);
  return verifyCheckpoint(note, { log, origin: `log.test/${memory}` });
}

describe.each(['sqlite', 'in-memory'] as const)('verifiable log (%s)', (kind) => {
  it('signs the head, proves every event in it and proves the log only grew', async () => {
    const memledger = open(signed, kind);
    try {
      const memory = await memledger.memory();
      const written = [];
      for (let i = 0; i < 5; i++)
        written.push(await memory.recordMessage({ speaker: 'user', content: `fact ${i}` }));
      const first = await memory.checkpoint();
      expect(first).toMatchObject({ signed: true, origin: 'log.test/default', size: 5 });
      const five = await verified(first.note);
      expect(Buffer.from(five.root).toString('base64')).toBe(first.root);
      for (const event of written) {
        const proof = parseInclusionProof(await memory.proveInclusion(event.seq, 5));
        const leaf = await verifyLeafInclusion(proof, five);
        expect(leaf).toMatchObject({
          memory: 'default',
          seq: event.seq,
          id: event.id,
          type: 'Message',
        });
      }
      await memory.deleteContent({ targets: [written[0]!.id], reason: 'forget' });
      await memory.recordMessage({ speaker: 'user', content: 'later' });
      const seven = await verified((await memory.checkpoint()).note);
      expect(seven.size).toBe(7);
      const proof = parseConsistencyProof(await memory.proveConsistency(5, 7));
      await verifyCheckpointConsistency(five, seven, proof);
      // Every earlier proof still verifies against its own checkpoint after the deletion.
      const again = parseInclusionProof(await memory.proveInclusion(0, 5));
      await verifyLeafInclusion(again, five);
    } finally {
      await memledger.close();
    }
  });

  it('serves an earlier size as the note signed then, and re-signs an unkept one identically', async () => {
    const memledger = open(signed, kind);
    try {
      const memory = await memledger.memory();
      for (let i = 0; i < 3; i++) await memory.recordMessage({ speaker: 'user', content: `a${i}` });
      const three = await memory.checkpoint();
      for (let i = 0; i < 3; i++) await memory.recordMessage({ speaker: 'user', content: `b${i}` });
      await memory.checkpoint();
      expect((await memory.checkpoint({ size: 3 })).note).toBe(three.note);
      const two = await memory.checkpoint({ size: 2 });
      expect(two.note).toBe((await memory.checkpoint({ size: 2 })).note);
      expect((await verified(two.note)).size).toBe(2);
      const empty = await verified((await memory.checkpoint({ size: 0 })).note);
      expect(Buffer.from(empty.root).toString('base64')).toBe(
        '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
      );
    } finally {
      await memledger.close();
    }
  });
});

describe('verifiable log', () => {
  it('serves unsigned checkpoint text and proofs without a key', async () => {
    const memledger = open({ name: 'unsigned.test', witnesses: [] });
    try {
      const memory = await memledger.memory('m-1');
      await memory.recordMessage({ speaker: 'user', content: 'hello' });
      const checkpoint = await memory.checkpoint();
      expect(checkpoint.signed).toBe(false);
      expect(memledger.verifiableLog.logKey).toBeUndefined();
      const parsed = parseCheckpoint(checkpoint.note);
      expect(parsed).toMatchObject({ origin: 'unsigned.test/m-1', size: 1 });
      const proof = parseInclusionProof(await memory.proveInclusion(0));
      await verifyLeafInclusion(proof, parsed);
    } finally {
      await memledger.close();
    }
  });

  it('refuses sizes past the head and seqs outside the tree with their codes', async () => {
    const memledger = open();
    try {
      const memory = await memledger.memory();
      await memory.recordMessage({ speaker: 'user', content: 'one' });
      await memory.recordMessage({ speaker: 'user', content: 'two' });
      const refusals: [() => Promise<unknown>, string][] = [
        [() => memory.checkpoint({ size: 3 }), 'TREE_SIZE_PAST_HEAD'],
        [() => memory.proveInclusion(0, 3), 'TREE_SIZE_PAST_HEAD'],
        [() => memory.proveConsistency(1, 9), 'TREE_SIZE_PAST_HEAD'],
        [() => memory.proveInclusion(2, 2), 'VALIDATION_FAILED'],
        [() => memory.proveInclusion(-1), 'VALIDATION_FAILED'],
        [() => memory.proveInclusion(0.5), 'VALIDATION_FAILED'],
        [() => memory.proveInclusion('0' as unknown as number), 'VALIDATION_FAILED'],
        [() => memory.proveConsistency(2, 1), 'VALIDATION_FAILED'],
        [() => memory.checkpoint({ size: -1 }), 'VALIDATION_FAILED'],
      ];
      for (const [call, code] of refusals) await expect(call()).rejects.toMatchObject({ code });
    } finally {
      await memledger.close();
    }
  });

  it('has the witnesses cosign each new checkpoint and keeps their cosignatures', async () => {
    const witnessKey = generateSigner('witness.test', SIGNATURE_TYPE.cosignature);
    const witness = new Witness({
      key: witnessKey,
      logs: [await parseVerifierKey(signer.vkey, SIGNATURE_TYPE.ed25519)],
      state: WitnessState.open(join(dir, 'witness.db')),
    });
    const server = await startWitnessServer(witness, '127.0.0.1', 0);
    const wkey = await parseVerifierKey(witnessKey.vkey, SIGNATURE_TYPE.cosignature);
    const memledger = open({ ...signed, witnesses: [{ key: wkey, url: server.url }] });
    try {
      const memory = await memledger.memory();
      const trust = async (note: string) =>
        verifyCheckpoint(note, {
          log: await parseVerifierKey(signer.vkey, SIGNATURE_TYPE.ed25519),
          witnesses: [wkey],
          quorum: 1,
        });
      await memory.recordMessage({ speaker: 'user', content: 'one' });
      const one = await memory.checkpoint();
      expect((await trust(one.note)).cosignatures).toHaveLength(1);
      await memory.recordMessage({ speaker: 'user', content: 'two' });
      const two = await memory.checkpoint();
      expect((await trust(two.note)).size).toBe(2);
      // Kept with its cosignature: asked again, the same note, not a new signing.
      expect((await memory.checkpoint({ size: 1 })).note).toBe(one.note);
    } finally {
      await memledger.close();
      await server.close();
    }
  });
});
