/**
 * `GET /metrics` of the application: Prometheus text exposition that a strict reader accepts,
 * whose counters and histograms move when events are appended, recalls run, writes are refused
 * and event-stream clients come and go.
 */
import request from 'supertest';
import { openSse, startTestServer } from '../http/http-app.js';
import { parsePrometheusText, sampleValue, type Sample } from './prometheus-text.js';

describe('GET /metrics', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  async function scrape(): Promise<Sample[]> {
    const res = await request(server.url).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return parsePrometheusText(res.text);
  }

  it('parses as Prometheus text and moves when events are appended', async () => {
    const before = await scrape();
    const store = { memledger_store: 'sqlite' };
    const messages = { ...store, memledger_event_kind: 'message' };

    for (const content of ['first note', 'second note']) {
      await request(server.url)
        .post('/api/memories/metrics/messages')
        .send({ speaker: 'user', content })
        .expect(201);
    }
    await request(server.url)
      .post('/api/memories/metrics/recall')
      .send({ query: 'note' })
      .expect(201);

    const after = await scrape();
    const moved = (name: string, where: Record<string, string> = {}) =>
      sampleValue(after, name, where) - sampleValue(before, name, where);
    expect(moved('memledger_events_appended_total', messages)).toBe(2);
    expect(
      moved('memledger_events_appended_total', { ...store, memledger_event_kind: 'recall' }),
    ).toBe(1);
    expect(moved('memledger_store_append_duration_count', store)).toBe(3);
    expect(moved('memledger_store_append_size_count', store)).toBe(3);
    expect(moved('memledger_recall_duration_count')).toBe(1);
    expect(moved('memledger_recall_hits_sum')).toBe(2);
    expect(sampleValue(after, 'memledger_memories_open')).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'memledger_read_model_lag_events')).toBe(0);
  });

  it('counts refused writes by error code, once each', async () => {
    const before = await scrape();
    await request(server.url)
      .post('/api/memories/metrics/messages')
      .send({ speaker: '' })
      .expect(400);
    await request(server.url)
      .post('/api/memories/metrics/deletions')
      .send({ targets: ['0193a5d2-0000-7000-8000-000000000000'], reason: 'unknown' })
      .expect(409);
    const after = await scrape();
    const moved = (code: string) =>
      sampleValue(after, 'memledger_commands_rejected_total', { memledger_error_code: code }) -
      sampleValue(before, 'memledger_commands_rejected_total', { memledger_error_code: code });
    expect(moved('VALIDATION_FAILED')).toBe(1);
    expect(moved('DELETION_TARGET_UNKNOWN')).toBe(1);
  });

  it('counts open event-stream clients', async () => {
    const client = await openSse(`${server.url}/api/memories/metrics/events/stream`);
    try {
      expect(sampleValue(await scrape(), 'memledger_sse_clients')).toBe(1);
    } finally {
      client.close();
    }
    for (let tries = 0; tries < 100; tries++) {
      if (sampleValue(await scrape(), 'memledger_sse_clients') === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(sampleValue(await scrape(), 'memledger_sse_clients')).toBe(0);
  });
});
