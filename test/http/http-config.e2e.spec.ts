/** The application's environment: which store, where read models go, and a restart that resumes. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { httpConfigFromEnv, startServer } from '../../src/http/index.js';
import { MEMLEDGER } from '../../src/nest.js';
import type { Memledger } from '../../src/memory/index.js';

describe('application configuration from the environment', () => {
  it('uses SQLite at MEMLEDGER_DB, and EventStoreDB with a read-model file when EVENTSTORE_URL is set', () => {
    expect(httpConfigFromEnv({ MEMLEDGER_DB: '/srv/m.db', PORT: '8080', HOST: '0.0.0.0' })).toEqual(
      {
        store: {
          kind: 'sqlite',
          path: '/srv/m.db',
          // Content sealed by default: the key store beside the database.
          keys: { kind: 'beside', path: '/srv/m.db', env: {} },
        },
        memory: { readModels: './data/read-models.db' },
        host: '0.0.0.0',
        port: 8080,
      },
    );
    expect(
      httpConfigFromEnv({
        EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false',
        MEMLEDGER_READ_MODELS: '/var/rm.db',
      }),
    ).toMatchObject({
      store: { kind: 'eventstoredb', connectionString: 'esdb://127.0.0.1:2113?tls=false' },
      memory: { readModels: '/var/rm.db' },
    });
    expect(() => httpConfigFromEnv({ PORT: 'eighty' })).toThrow(/Invalid PORT "eighty"/);
    expect(
      httpConfigFromEnv({
        EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false',
        MEMLEDGER_ESDB_INDEX: '/var/esdb-index.db',
        MEMLEDGER_ESDB_MAX_APPEND_BYTES: '524288',
        MEMLEDGER_ESDB_DEADLINE_MS: '2000',
      }).store,
    ).toEqual({
      kind: 'eventstoredb',
      connectionString: 'esdb://127.0.0.1:2113?tls=false',
      idIndex: '/var/esdb-index.db',
      maxAppendBytes: 524_288,
      deadlineMs: 2000,
      keys: { kind: 'beside', path: '/var/eventstoredb', env: {} },
    });
    expect(
      httpConfigFromEnv({ MEMLEDGER_DB: '/srv/m.db', MEMLEDGER_ENCRYPTION: 'off' }).store,
    ).toEqual({ kind: 'sqlite', path: '/srv/m.db' });
    expect(() => httpConfigFromEnv({ MEMLEDGER_ENCRYPTION: 'maybe' })).toThrow(
      /Invalid MEMLEDGER_ENCRYPTION "maybe": must be on or off/,
    );
    expect(() =>
      httpConfigFromEnv({ EVENTSTORE_URL: 'esdb://x:2113', MEMLEDGER_ESDB_DEADLINE_MS: '2s' }),
    ).toThrow(/Invalid MEMLEDGER_ESDB_DEADLINE_MS "2s": must be a positive integer/);
  });

  it('reads the JWT settings (all three or none) and MEMLEDGER_INSECURE', () => {
    const jwt = {
      MEMLEDGER_JWT_JWKS_URL: 'https://idp.example/jwks.json',
      MEMLEDGER_JWT_ISSUER: 'https://idp.example/',
      MEMLEDGER_JWT_AUDIENCE: 'memledger',
    };
    expect(httpConfigFromEnv({ ...jwt, MEMLEDGER_JWT_CLAIM: 'grants' }).access).toEqual({
      jwt: {
        jwksUrl: 'https://idp.example/jwks.json',
        issuer: 'https://idp.example/',
        audience: 'memledger',
        claim: 'grants',
      },
    });
    expect(httpConfigFromEnv({ MEMLEDGER_INSECURE: '1' }).access).toEqual({ insecure: true });
    expect(httpConfigFromEnv({}).access).toBeUndefined();
    expect(() => httpConfigFromEnv({ MEMLEDGER_JWT_JWKS_URL: jwt.MEMLEDGER_JWT_JWKS_URL })).toThrow(
      /JWT settings are incomplete: MEMLEDGER_JWT_ISSUER, MEMLEDGER_JWT_AUDIENCE must be set too/,
    );
  });

  it('restarts on the same SQLite file with identical state, the read models already at the head', async () => {
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

      const second = await startServer({ ...httpConfigFromEnv(env), port: 0, logger: false });
      const memory = await second.app.get<Memledger>(MEMLEDGER).memory();
      expect(memory.readModelSeq).toBe(2);
      expect(
        (await request(second.url).get('/api/memories/default/state').expect(200)).body,
      ).toEqual(before);
      await second.close();
    } finally {
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    }
  });
});
