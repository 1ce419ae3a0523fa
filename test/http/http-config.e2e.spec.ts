/** The application's environment: which store, where snapshots go, and a restart that resumes. */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { httpConfigFromEnv, startServer } from '../../src/http/index.js';
import { MEMLEDGER } from '../../src/nest.js';
import type { Memledger } from '../../src/memory/index.js';

describe('application configuration from the environment', () => {
  it('uses SQLite at MEMLEDGER_DB with snapshots beside it, and EventStoreDB when EVENTSTORE_URL is set', () => {
    expect(httpConfigFromEnv({ MEMLEDGER_DB: '/srv/m.db', PORT: '8080', HOST: '0.0.0.0' })).toEqual(
      {
        store: { kind: 'sqlite', path: '/srv/m.db' },
        memory: { snapshots: { dir: '/srv/m.db.snapshots' } },
        host: '0.0.0.0',
        port: 8080,
      },
    );
    expect(
      httpConfigFromEnv({
        EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false',
        MEMLEDGER_SNAPSHOTS: '/var/snap',
      }),
    ).toMatchObject({
      store: { kind: 'eventstoredb', connectionString: 'esdb://127.0.0.1:2113?tls=false' },
      memory: { snapshots: { dir: '/var/snap' } },
    });
    expect(() => httpConfigFromEnv({ PORT: 'eighty' })).toThrow(/Invalid PORT "eighty"/);
  });

  it('restarts on the same SQLite file with identical state, resuming the read models from a snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memledger-restart-'));
    const env = { MEMLEDGER_DB: join(dir, 'm.db') };
    try {
      const first = await startServer({ ...httpConfigFromEnv(env), port: 0, logger: false });
      for (const content of ['the vault is in Bern', 'the key is blue']) {
        await request(first.url)
          .post('/api/memories/default/messages')
          .send({ speaker: 'user', content })
          .expect(201);
      }
      await request(first.url)
        .post('/api/memories/default/recall')
        .send({ query: 'vault' })
        .expect(201);
      const before = (await request(first.url).get('/api/memories/default/state').expect(200))
        .body as unknown;
      await first.close();
      expect(readdirSync(join(dir, 'm.db.snapshots'))).toEqual(['memory-default.snapshot.json']);

      const second = await startServer({ ...httpConfigFromEnv(env), port: 0, logger: false });
      const memory = await second.app.get<Memledger>(MEMLEDGER).memory();
      expect(memory.resumedFrom).toBe(2);
      expect(
        (await request(second.url).get('/api/memories/default/state').expect(200)).body,
      ).toEqual(before);
      await second.close();
    } finally {
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    }
  });
});
