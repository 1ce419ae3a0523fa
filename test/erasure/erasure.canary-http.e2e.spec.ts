/**
 * The canary property through the HTTP API (SQLite with keys, as `npm start`): after random
 * deletions and erasures, no erased item's words come back from GET state (now and as of every
 * seq), events, one event, an item's history, search (now and as of every seq), the JSON Lines
 * export, or the event stream replayed from seq 0.
 */
import fc from 'fast-check';
import { jest } from '@jest/globals';
import {
  canaryOpsArbitrary,
  erasedCanariesIn,
  runCanaryOps,
  SHARED_WORD,
} from '../support/erasure-canaries.js';
import { openSse, startTestServer } from '../http/http-app.js';

jest.setTimeout(60_000);

describe('canaries through the HTTP API (SQLite with keys)', () => {
  it('no route returns an erased item’s words, now or as of any seq, nor the stream from 0 (property)', async () => {
    const server = await startTestServer({}, { sealed: true });
    let run = 0;
    let erasedTotal = 0;
    try {
      await fc.assert(
        fc.asyncProperty(canaryOpsArbitrary(14), async (ops) => {
          const memoryId = `http-canary-${run++}`;
          const log = await runCanaryOps(await server.memledger.memory(memoryId), ops);
          erasedTotal += log.erased.size;
          const base = `${server.url}/api/memories/${memoryId}`;
          const leaks: string[] = [];
          const scan = async (path: string) => {
            const response = await fetch(`${base}/${path}`);
            expect([path, response.status]).toEqual([path, 200]);
            const found = erasedCanariesIn(await response.text(), log);
            if (found.length > 0) leaks.push(`${path}: ${found.join(', ')}`);
          };
          for (let n = -1; n <= log.lastSeq; n++) {
            await scan(`state?upToSeq=${n}&limit=1000`);
            await scan(`search?q=${SHARED_WORD}&upToSeq=${n}&limit=100`);
            for (const word of log.erased) await scan(`search?q=${word}&upToSeq=${n}`);
          }
          await scan('state?limit=1000');
          await scan('events?limit=1000');
          await scan('export');
          for (const id of log.ids) {
            await scan(`events/${id}`);
            await scan(`items/${id}/history`);
          }
          const sse = await openSse(`${base}/events/stream?fromSeq=0`);
          try {
            const messages = await sse.waitFor(log.lastSeq + 1);
            const found = erasedCanariesIn(messages, log);
            if (found.length > 0) leaks.push(`events/stream: ${found.join(', ')}`);
          } finally {
            sse.close();
          }
          // The same routes show a live item's words: the scan can find them.
          const live = [...log.live.keys()][0];
          if (live !== undefined)
            expect(await (await fetch(`${base}/events?limit=1000`)).text()).toContain(live);
          expect(leaks).toEqual([]);
        }),
        { numRuns: 6 },
      );
      expect(erasedTotal).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
