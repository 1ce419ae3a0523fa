/**
 * Schema evolution as a property: for random logs, the log written in the old shapes (0.1.0's
 * version-1 events, in 0.1.0's SQLite layout and as version-less JSON) and the same log written
 * by today's code (current versions) replay to equal states, event for event — the upcasters
 * make old events exactly the events the current code would have written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  EVENT_TYPES,
  EVENT_VERSIONS,
  LEXICAL_RETRIEVAL,
  replay,
  type Sequenced,
} from '../../src/core/index.js';
import { asVersion1Fields } from '../support/as-read-today.js';
import { decodeEvent, encodeEvent } from '../../src/store/codec.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';
import { buildLog, opsArbitrary, sequenced } from '../support/arbitraries.js';
import { readAll } from '../support/collect.js';
import { writeVersion1File } from '../store/sqlite/sqlite-files.js';

/**
 * Random logs as the current code writes them when it recalls itself (BM25: lexical retrieval),
 * which is what a recall 0.1.0 wrote reads as.
 */
const logs = opsArbitrary(30).map((ops) =>
  sequenced(buildLog(ops)).map((event) =>
    event.kind === 'recall' ? { ...event, retrieval: LEXICAL_RETRIEVAL } : event,
  ),
);
const dir = mkdtempSync(join(tmpdir(), 'memledger-upcast-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The event as JSON, without the freezing and markers: what a comparison should look at. */
const plain = (events: readonly Sequenced[]) => JSON.parse(JSON.stringify(events)) as unknown;

describe('upcasting old events (random logs)', () => {
  it('decodes version-1 JSON (0.1.0, no version recorded) to the events the current version encodes', () => {
    fc.assert(
      fc.property(logs, (log) => {
        const old = log.map((event) => {
          const { seq: _seq, ...data } = event;
          const old = asVersion1Fields(data);
          return decodeEvent(EVENT_TYPES[event.kind], old, event.seq, 'a 0.1.0 export');
        });
        const current = log.map((event) => {
          const { type, version, data } = encodeEvent(event);
          expect(version).toBe(EVENT_VERSIONS[event.kind]);
          return decodeEvent(type, data, event.seq, 'a current export', version);
        });
        expect(plain(old)).toEqual(plain(current));
        expect(replay(old)).toEqual(replay(current));
      }),
      { numRuns: 200 },
    );
  });

  it('decodes a version-2 recall (retrieval without vectors) to the recall the current version encodes with vectors null', () => {
    const hybrid = {
      method: 'hybrid',
      model: 'all-minilm',
      dimensions: 384,
      fusion: { method: 'rrf', k: 60, weights: { lexical: 1, semantic: 2 } },
      vectors: null,
    } as const;
    fc.assert(
      fc.property(logs, (log) => {
        const recalls = log
          .filter((event) => event.kind === 'recall')
          .map((event) => ({ ...event, retrieval: hybrid }));
        const old = recalls.map((event) => {
          const { data } = encodeEvent(event);
          const { vectors: _vectors, ...retrieval } = data.retrieval as Record<string, unknown>;
          return decodeEvent('Recall', { ...data, retrieval }, event.seq, 'a recall 2 log', 2);
        });
        const current = recalls.map((event) => {
          const { type, version, data } = encodeEvent(event);
          return decodeEvent(type, data, event.seq, 'a current export', version);
        });
        expect(plain(old)).toEqual(plain(current));
      }),
      { numRuns: 100 },
    );
  });

  it('replays a 0.1.0 SQLite file (layout 1, version-1 events) to the state of the same log written now', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(logs, async (log) => {
        run++;
        const oldPath = join(dir, `old-${run}.db`);
        const newPath = join(dir, `new-${run}.db`);
        writeVersion1File(oldPath, { default: log });
        const oldStore = openSqliteStore({ path: oldPath });
        const newStore = openSqliteStore({ path: newPath });
        try {
          for (const event of log) {
            const { seq: _seq, ...fresh } = event;
            await newStore.log().append([{ ...fresh, seq: null }]);
          }
          const fromOld = await readAll(oldStore.log());
          const fromNew = await readAll(newStore.log());
          expect(plain(fromOld)).toEqual(plain(fromNew));
          expect(replay(fromOld)).toEqual(replay(fromNew));
          // Both continue at the same next seq.
          expect(await oldStore.log().lastSeq()).toBe(await newStore.log().lastSeq());
        } finally {
          await oldStore.close();
          await newStore.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});
