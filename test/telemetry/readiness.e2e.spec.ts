/**
 * `/health/ready` on EventStoreDB (the in-process test server, real db-client over gRPC): ready
 * while the server answers and the read models are caught up, not ready (503, the store named as
 * down) once it stops, ready again after it restarts. `/health/live` stays up throughout.
 */
import request from 'supertest';
import { startTestServer } from '../http/http-app.js';
import { startEsdbTestServer, type EsdbTestServer } from '../support/esdb-test-server/index.js';

interface Report {
  readonly status: string;
  readonly error: Record<string, unknown>;
}

describe('readiness on EventStoreDB', () => {
  let esdb: EsdbTestServer;
  let app: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    esdb = await startEsdbTestServer();
    app = await startTestServer({
      store: { kind: 'eventstoredb', connectionString: esdb.connectionString, deadlineMs: 1000 },
      readyTimeoutMs: 1000,
    });
  });
  afterAll(async () => {
    await app.close();
    await esdb.close();
  });

  /** Polls readiness until it answers `status` (at most ~20 s), and returns that answer. */
  async function readyBecomes(status: 200 | 503): Promise<Report> {
    let last: { status: number; body: Report } | undefined;
    for (let tries = 0; tries < 100; tries++) {
      const res = await request(app.url).get('/health/ready');
      last = { status: res.status, body: res.body as Report };
      if (res.status === status) return last.body;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`readiness stayed ${last?.status}: ${JSON.stringify(last?.body)}`);
  }

  it('goes false when the store stops and true again after it restarts', async () => {
    await request(app.url)
      .post('/api/memories/default/messages')
      .send({ speaker: 'user', content: 'before the outage' })
      .expect(201);
    expect((await readyBecomes(200)).status).toBe('ok');

    await esdb.stop();
    const down = await readyBecomes(503);
    expect(down.status).toBe('error');
    expect(Object.keys(down.error)).toContain('store');
    await request(app.url).get('/health/live').expect(200);

    await esdb.restart();
    expect((await readyBecomes(200)).status).toBe('ok');
    await request(app.url)
      .post('/api/memories/default/messages')
      .send({ speaker: 'user', content: 'after the outage' })
      .expect(201);
  });
});
