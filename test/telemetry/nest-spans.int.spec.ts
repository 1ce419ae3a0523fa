/**
 * Spans of the Nest bounded context, with the real OpenTelemetry SDK (in-memory exporter): a
 * Recall command sent while an agent's model-call span is active gives a `search_memory` span
 * under it, carrying the Recall's seq and ids; a Deletion gives a `delete_memory` span carrying
 * its targets; the store append nests under each; no content and (by default) no query text.
 * The metric instruments count appends by kind, recalls and refusals (in-memory metric exporter).
 */
import { SpanKind, trace } from '@opentelemetry/api';
import { CommandBus } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import { masterKeyFromBytes, openSqliteKeyStore } from '../../src/keys/index.js';
import {
  DeleteContentCommand,
  EraseContentCommand,
  MEMORY_STORE,
  MemoryModule,
  RecallCommand,
  RecordMessageCommand,
  type MemoryModuleOptions,
} from '../../src/nest.js';
import { createMessage } from '../../src/core/index.js';
import type { MemoryStore } from '../../src/store/event-log.port.js';
import {
  allAttributeText,
  childrenOf,
  counterValue,
  onlySpan,
  registerTestOtel,
  type TestOtel,
} from './otel-sdk.js';

const SECRET_CONTENT = 'The vault combination is 4-8-15-16.';
const QUERY = 'vault combination';

let otel: TestOtel;
beforeAll(() => {
  otel = registerTestOtel();
});
afterAll(async () => {
  await otel.shutdown();
});

async function bootModule(extra: Partial<MemoryModuleOptions> = {}) {
  const moduleRef: TestingModule = await Test.createTestingModule({
    imports: [MemoryModule.forRoot({ store: { kind: 'in-memory' }, ...extra })],
  }).compile();
  await moduleRef.init();
  return { moduleRef, commands: moduleRef.get(CommandBus) };
}

/** Runs `work` inside an active span, as an agent framework's model call would. */
function underModelCall<T>(work: () => Promise<T>) {
  return trace.getTracer('agent').startActiveSpan('chat test-model', async (span) => {
    try {
      return { result: await work(), parent: span.spanContext() };
    } finally {
      span.end();
    }
  });
}

describe('Nest command spans', () => {
  let app: Awaited<ReturnType<typeof bootModule>>;
  beforeEach(async () => {
    app = await bootModule();
    otel.reset();
  });
  afterEach(async () => {
    await app.moduleRef.close();
  });

  it('nests the Recall span under the caller span with the Recall seq, id and recalled ids', async () => {
    const message = await app.commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'user', content: SECRET_CONTENT }),
    );
    otel.reset();

    const { result, parent } = await underModelCall(() =>
      app.commands.execute(new RecallCommand(undefined, { query: QUERY })),
    );

    const spans = otel.spans();
    const recall = onlySpan(spans, 'search_memory');
    expect(recall.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(recall.spanContext().traceId).toBe(parent.traceId);
    expect(recall.kind).toBe(SpanKind.INTERNAL);
    expect(recall.attributes).toMatchObject({
      'gen_ai.operation.name': 'search_memory',
      'gen_ai.memory.store.id': 'default',
      'gen_ai.memory.record.count': 1,
      'memledger.operation': 'recall',
      'memledger.event.kind': 'recall',
      'memledger.event.seq': result.recall.seq,
      'memledger.event.id': result.recall.id,
      'memledger.recall.recalled_ids': [message.id],
    });
    const append = childrenOf(spans, recall).find((s) => s.name === 'memledger.store.append');
    expect(append?.attributes).toMatchObject({
      'memledger.store': 'in-memory',
      'memledger.event.seq': result.recall.seq,
    });
    expect(recall.attributes['gen_ai.memory.query.text']).toBeUndefined();
    const text = allAttributeText(spans);
    expect(text).not.toContain('vault');
    expect(text).not.toContain('4-8-15-16');
  });

  it('nests the Deletion span under the caller span with its targets and seq', async () => {
    const message = await app.commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'user', content: SECRET_CONTENT }),
    );
    otel.reset();

    const { result, parent } = await underModelCall(() =>
      app.commands.execute(
        new DeleteContentCommand(undefined, { targets: [message.id], reason: 'user asked' }),
      ),
    );

    const spans = otel.spans();
    const deletion = onlySpan(spans, 'delete_memory');
    expect(deletion.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(deletion.attributes).toMatchObject({
      'gen_ai.operation.name': 'delete_memory',
      'gen_ai.memory.store.id': 'default',
      'gen_ai.memory.record.id': message.id,
      'gen_ai.memory.record.count': 1,
      'memledger.deletion.targets': [message.id],
      'memledger.event.id': result.id,
      'memledger.event.seq': result.seq,
      'memledger.event.kind': 'deletion',
    });
    expect(childrenOf(spans, deletion).map((s) => s.name)).toContain('memledger.store.append');
    expect(allAttributeText(spans)).not.toContain('4-8-15-16');
  });

  it('gives an erasure a delete_memory span with its targets and the Erasure seq, and no words', async () => {
    await app.moduleRef.close();
    const keyStore = openSqliteKeyStore(':memory:', {
      masterKey: masterKeyFromBytes(randomBytes(32)),
      create: true,
    });
    app = await bootModule({
      store: { kind: 'in-memory', keys: { kind: 'key-store', keyStore } },
    });
    const message = await app.commands.execute(
      new RecordMessageCommand(undefined, { speaker: 'user', content: SECRET_CONTENT }),
    );
    await app.commands.execute(
      new DeleteContentCommand(undefined, { targets: [message.id], reason: 'user asked' }),
    );
    otel.reset();

    const { result, parent } = await underModelCall(() =>
      app.commands.execute(
        new EraseContentCommand(undefined, { targets: [message.id], reason: 'GDPR art. 17' }),
      ),
    );

    const erasure = onlySpan(otel.spans(), 'delete_memory');
    expect(erasure.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(erasure.attributes).toMatchObject({
      'memledger.operation': 'erase_content',
      'gen_ai.memory.record.id': message.id,
      'memledger.event.id': result.erasure.id,
      'memledger.event.seq': result.erasure.seq,
      'memledger.event.kind': 'erasure',
    });
    expect(allAttributeText(otel.spans())).not.toContain('4-8-15-16');
  });

  it('traces the read models catching up with what another writer appended', async () => {
    await app.commands.execute(new RecallCommand(undefined, { query: QUERY }));
    // Appended past the facade, as another process would: the read models are now behind.
    const store = app.moduleRef.get<MemoryStore>(MEMORY_STORE);
    const [other] = await store
      .log()
      .append([createMessage({ speaker: 'other', content: SECRET_CONTENT })]);
    otel.reset();

    const { result } = await underModelCall(() =>
      app.commands.execute(new RecallCommand(undefined, { query: QUERY })),
    );

    const spans = otel.spans();
    const recall = onlySpan(spans, 'search_memory');
    const catchUps = spans.filter((s) => s.name === 'memledger.read_models.catch_up');
    // Whoever needs the new event first catches up: the recall (the span nests under it) or the
    // module's live follower of the log (a span of its own, outside any request). The follower
    // needs the read models alone; the recall also search, which may take a catch-up of its own.
    for (const span of catchUps)
      expect([undefined, recall.spanContext().spanId]).toContain(span.parentSpanContext?.spanId);
    const catchUp = catchUps.find((s) => s.attributes['memledger.read.from_seq'] === 1);
    expect(catchUps.length).toBeLessThanOrEqual(2);
    expect(catchUp?.attributes).toMatchObject({
      'gen_ai.memory.store.id': 'default',
      'memledger.read.from_seq': 1,
      'memledger.read_models.checkpoint': 1,
    });
    expect(childrenOf(spans, catchUp!).map((s) => s.name)).toContain('memledger.store.read');
    expect(result.recall.recalled).toContain(other!.id);
  });

  it('marks a refused command with its error code and no message', async () => {
    const { parent } = await underModelCall(() =>
      app.commands
        .execute(
          new DeleteContentCommand(undefined, {
            targets: ['0193a5d2-0000-7000-8000-000000000000'],
            reason: 'unknown id',
          }),
        )
        .catch(() => undefined),
    );

    const deletion = onlySpan(otel.spans(), 'delete_memory');
    expect(deletion.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(deletion.attributes['error.type']).toBe('DELETION_TARGET_UNKNOWN');
    expect(deletion.status).toEqual({ code: 2, message: 'DELETION_TARGET_UNKNOWN' });
  });
});

describe('Nest command metrics', () => {
  it('counts appended events by kind, measures recalls and counts refusals by code', async () => {
    const app = await bootModule();
    try {
      const before = await otel.collect();
      const message = await app.commands.execute(
        new RecordMessageCommand(undefined, { speaker: 'user', content: SECRET_CONTENT }),
      );
      await app.commands.execute(new RecallCommand(undefined, { query: QUERY }));
      await app.commands
        .execute(
          new DeleteContentCommand(undefined, {
            targets: [message.id, message.id],
            reason: 'twice',
          }),
        )
        .catch(() => undefined);

      const after = await otel.collect();
      const moved = (name: string, where = {}) =>
        counterValue(after, name, where) - counterValue(before, name, where);
      const store = { 'memledger.store': 'in-memory' };
      expect(
        moved('memledger.events.appended', { ...store, 'memledger.event.kind': 'message' }),
      ).toBe(1);
      expect(
        moved('memledger.events.appended', { ...store, 'memledger.event.kind': 'recall' }),
      ).toBe(1);
      expect(
        moved('memledger.commands.rejected', { 'memledger.operation': 'delete_content' }),
      ).toBe(1);
      const recalls = after.find((m) => m.descriptor.name === 'memledger.recall.duration');
      expect(recalls?.descriptor.unit).toBe('s');
      expect(recalls?.dataPoints).toHaveLength(1);
    } finally {
      await app.moduleRef.close();
    }
  });
});

describe('Nest command spans with captureQueries', () => {
  it('puts the recall query, and still no content, on the span when queries are turned on', async () => {
    const app = await bootModule({ telemetry: { captureQueries: true } });
    try {
      await app.commands.execute(
        new RecordMessageCommand(undefined, { speaker: 'user', content: SECRET_CONTENT }),
      );
      otel.reset();
      await app.commands.execute(new RecallCommand(undefined, { query: QUERY }));
      const recall = onlySpan(otel.spans(), 'search_memory');
      expect(recall.attributes['gen_ai.memory.query.text']).toBe(QUERY);
      expect(allAttributeText(otel.spans())).not.toContain('4-8-15-16');
    } finally {
      await app.moduleRef.close();
    }
  });
});
