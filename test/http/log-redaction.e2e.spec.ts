/* eslint-disable @typescript-eslint/no-unsafe-member-access -- supertest bodies are untyped JSON, asserted field by field */
/**
 * Secrets never reach the server log or an error body: a 5xx on the event stream opened with
 * `?access_token=` logs the request without the token, and an error quoting a connection string
 * or an Authorization value loses the password and the credentials.
 */
import type { LoggerService } from '@nestjs/common';
import request from 'supertest';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import { MemoryError } from '../../src/core/index.js';
import { openTestApp, type TestApp } from './http-app.js';

const TOKEN = 'sekrit-token-123';
const PASSWORD = 'changeit-pw';

const LEAK =
  `connect esdb://admin:${PASSWORD}@db:2113?tls=false failed; ` +
  `Authorization: Bearer ${TOKEN}; {"password":"${PASSWORD}"}`;

/** A store whose logs fail with `failure`, an error quoting every kind of secret. */
function leakyStore(failure: () => Error): MemoryStore {
  const inner = openInMemoryStore();
  return {
    description: 'leaky test store',
    log: () => {
      throw failure();
    },
    memoryIds: () => inner.memoryIds(),
    close: () => inner.close(),
  };
}

/** Every line the application logs, whatever the level. */
function capturingLogger(lines: string[]): LoggerService {
  const keep = (...parts: unknown[]) => {
    lines.push(parts.map(String).join(' '));
  };
  return { log: keep, error: keep, warn: keep, debug: keep, verbose: keep, fatal: keep };
}

describe('HTTP log redaction', () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await openTestApp({
      apiToken: TOKEN,
      logger: ['error', 'warn'],
      store: { kind: 'existing', store: leakyStore(() => new Error(LEAK)) },
    });
    t.app.useLogger(capturingLogger(lines));
  });
  afterAll(async () => {
    await t.close();
  });

  it('logs a failed stream request without its access_token, password or bearer token', async () => {
    // when the stream, opened with the token in its query string, fails with a 500
    const res = await request(t.server)
      .get(`/api/memories/default/events/stream?access_token=${TOKEN}&fromSeq=0`)
      .expect(500);
    // then the failure is logged, and no line carries a secret
    expect(res.body.code).toBe('INTERNAL_ERROR');
    const log = lines.join('\n');
    expect(log).toContain('GET /api/memories/default/events/stream?access_token=[redacted]');
    expect(log).toContain('esdb://admin:[redacted]@db:2113');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(PASSWORD);
  });
});

describe('HTTP error body redaction', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp({
      store: {
        kind: 'existing',
        store: leakyStore(() => new MemoryError('STORE_UNAVAILABLE', `Store down: ${LEAK}.`)),
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a 503 whose message quotes a connection string without its password', async () => {
    const res = await request(t.server).get('/api/memories/default/state').expect(503);
    expect(res.body.code).toBe('STORE_UNAVAILABLE');
    expect(res.body.message).toContain('esdb://admin:[redacted]@db:2113');
    expect(res.body.message).not.toContain(PASSWORD);
    expect(res.body.message).not.toContain(TOKEN);
  });
});
