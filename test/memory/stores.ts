import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite.event-log.js';

/** A store kind the facade and Nest tests run on, with a way to reopen the same data. */
export interface StoreKind {
  readonly name: string;
  open(): MemoryStore;
  /** Opens the same data again (durable stores) or `undefined` (in-memory). */
  reopen(): MemoryStore | undefined;
  cleanup(): void;
}

/** In-memory and a SQLite file in a fresh temp folder. */
export function storeKinds(): StoreKind[] {
  let dir = '';
  return [
    {
      name: 'in-memory',
      open: () => openInMemoryStore(),
      reopen: () => undefined,
      cleanup: () => undefined,
    },
    {
      name: 'SQLite',
      open: () => {
        dir = mkdtempSync(join(tmpdir(), 'memledger-facade-'));
        return openSqliteStore({ path: join(dir, 'm.db'), pollMs: 20 });
      },
      reopen: () => openSqliteStore({ path: join(dir, 'm.db'), pollMs: 20 }),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    },
  ];
}
