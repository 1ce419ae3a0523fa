/**
 * The file bench/open-memory.bench.ts opens: `n` mixed events written through memledger once and
 * cached under the OS temp folder (named by the log, read-model and mix layouts it was built
 * with), and the file helpers the bench uses around it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openMemledger } from '../src/memory/index.js';
import { READ_MODEL_VERSION } from '../src/read-models/index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite.event-log.js';
import { SQLITE_SCHEMA_VERSION } from '../src/store/sqlite/sqlite.schema.js';
import { MIX_VERSION, mixedEventBatches } from './support.js';

const MB = 1024 * 1024;

/** The cached file of `n` mixed events, built when missing (into a side file, renamed when whole). */
export async function cachedMemoryFile(n: number): Promise<string> {
  const dir = join(tmpdir(), 'memledger-bench');
  mkdirSync(dir, { recursive: true });
  const layout = `log${SQLITE_SCHEMA_VERSION}-rm${READ_MODEL_VERSION}-mix${MIX_VERSION}`;
  const path = join(dir, `open-memory-${n}-${layout}.db`);
  if (existsSync(path)) {
    console.log(`open-memory: reusing ${path} (delete it to rebuild)`);
    return path;
  }
  const building = `${path}.building`;
  removeDatabase(building);
  console.log(`open-memory: building ${n.toLocaleString('en-US')} events into ${path}`);
  const start = performance.now();
  const store = openSqliteStore({ path: building, synchronous: 'NORMAL' });
  const memledger = openMemledger({ store, closeStore: false });
  const log = store.log();
  let written = 0;
  for (const batch of mixedEventBatches({ n })) {
    await log.append(batch);
    written += batch.length;
    if (written % 500_000 === 0 || written === n) {
      const seconds = (performance.now() - start) / 1000;
      const rss = (process.memoryUsage().rss / MB).toFixed(0);
      console.log(
        `  ${written.toLocaleString('en-US')} events, ${seconds.toFixed(0)} s, RSS ${rss} MB`,
      );
    }
  }
  // The file as production leaves it: the search index caught up too (it follows appends).
  await (await memledger.memory()).search('indexed');
  const checkpoint = (await memledger.memory()).readModelSeq;
  await memledger.close();
  await store.close();
  if (checkpoint !== n - 1)
    throw new Error(`The read models reached seq ${checkpoint}, expected ${n - 1}.`);
  renameSync(building, path);
  console.log(`open-memory: built in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return path;
}

/** Drops the file's pages from the OS page cache (GNU dd; false where that is not available). */
export function evictFromPageCache(path: string): boolean {
  const dd = spawnSync('dd', [`if=${path}`, 'iflag=nocache', 'count=0', 'status=none']);
  return dd.status === 0;
}

/** Deletes a SQLite file with its WAL and shared-memory files. */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
