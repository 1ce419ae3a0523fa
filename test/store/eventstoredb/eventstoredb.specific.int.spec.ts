/**
 * What only the EventStoreDB store promises beyond the contract: surviving a dropped node,
 * racing instances, vendor error translation, and the stream layout other tools read.
 */
import {
  EventStoreDBClient,
  jsonEvent,
  type AppendResult,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type { MemoryEvent, Sequenced } from '../../../src/core/index.js';
import { encodeEvent } from '../../../src/store/codec.js';
import { contentEventId } from '../../../src/store/eventstoredb/eventstoredb.write.js';
import type { MemoryStore } from '../../../src/store/event-log.port.js';
import {
  openEventStoreDbStore,
  type EventStoreDbStoreExtra,
} from '../../../src/store/eventstoredb/eventstoredb.event-log.js';
import { raceDeletionsAgainstRecalls } from './racing-instances.js';
import { readAll, rejectionOf, take } from '../../support/collect.js';
import { startEsdbTestServer, type EsdbTestServer } from '../../support/esdb-test-server/index.js';
import { deletionOf, doc, message, recallOf } from '../../support/events.js';

let server: EsdbTestServer;
const stores: MemoryStore[] = [];
const clients: EventStoreDBClient[] = [];

const open = (extra: EventStoreDbStoreExtra = {}, connectionString = server.connectionString) => {
  const store = openEventStoreDbStore({ connectionString }, { resubscribeDelayMs: 50, ...extra });
  stores.push(store);
  return store;
};
const openOn = (client: EventStoreDBClient, extra: EventStoreDbStoreExtra = {}) => {
  const store = openEventStoreDbStore({ client }, extra);
  stores.push(store);
  return store;
};
const rawClient = () => {
  const client = EventStoreDBClient.connectionString(server.connectionString);
  clients.push(client);
  return client;
};
const rawEvents = async (client: EventStoreDBClient, stream: string) => {
  const out: ResolvedEvent[] = [];
  for await (const resolved of client.readStream(stream) as AsyncIterable<ResolvedEvent>)
    out.push(resolved);
  return out;
};
/**
 * How a peer names the events it writes: as this version does (a content-addressed event id,
 * the schema version in the metadata), or as memledger 0.2.0 did (event id = our id).
 */
type PeerLayout = 'content-addressed' | '0.2.0';
/** Writes `event` as a memledger peer would, but straight through the raw client. */
const writeRaw = (
  client: EventStoreDBClient,
  event: MemoryEvent,
  stream = 'memory-default',
  layout: PeerLayout = 'content-addressed',
) => {
  const { id, type, version, data } = encodeEvent(event);
  const proposed =
    layout === '0.2.0'
      ? jsonEvent({ id, type, data: data as never })
      : jsonEvent({
          id: contentEventId(type, version, data),
          type,
          data: data as never,
          metadata: { schemaVersion: version },
        });
  return client.appendToStream(stream, proposed);
};
/** Our ids of a stream's raw records (they sit in the data; the event id is a content address). */
const addressOf = (event: MemoryEvent) => {
  const { type, version, data } = encodeEvent(event);
  return contentEventId(type, version, data);
};
const idsIn = (records: readonly ResolvedEvent[]) =>
  records.map((r) => (r.event!.data as { id: string }).id);
/**
 * A client that runs `before` ahead of each of its appends (another writer getting in first)
 * and hands each append's result to `after`.
 */
const racedClient = (
  before: () => Promise<void>,
  after: (result: AppendResult) => void = () => undefined,
): EventStoreDBClient => {
  const client = rawClient();
  return new Proxy(client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (property !== 'appendToStream') return method.bind(target);
      return async (...args: unknown[]) => {
        await before();
        const result = (await method.apply(target, args)) as AppendResult;
        after(result);
        return result;
      };
    },
  });
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeEach(async () => {
  server = await startEsdbTestServer();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  await server.close();
});

describe('EventStoreDB store: subscriptions across a dropped node', () => {
  it('resumes after the server stops and restarts on the same port, with no lost and no repeated event', async () => {
    const log = open().log();
    const controller = new AbortController();
    const iterator = log.subscribe({ signal: controller.signal })[Symbol.asyncIterator]();
    const next = async () => (await iterator.next()).value as Sequenced;
    await log.append([message('before 0'), message('before 1')]);
    await log.append([message('before 2')]);
    const early = [await next(), await next(), await next()];

    await server.stop();
    const down = await rejectionOf(log.append([message('while down')]));
    await sleep(200);
    await server.restart();
    await log.append([message('after 0')]);
    await log.append([message('after 1'), message('after 2')]);
    const late = [await next(), await next(), await next()];
    // Nothing more may arrive: a repeat would show up here.
    const extra = await Promise.race([iterator.next(), sleep(300).then(() => 'quiet' as const)]);
    controller.abort();

    expect(down.code).toBe('STORE_UNAVAILABLE');
    expect([...early, ...late].map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(late.map((e) => (e.kind === 'message' ? e.content : ''))).toEqual([
      'after 0',
      'after 1',
      'after 2',
    ]);
    expect(extra).toBe('quiet');
  });

  it('subscribes to a memory that does not exist yet, and ends when the store closes', async () => {
    const store = open();
    const log = store.log('not-yet');
    const received = take(log.subscribe(), 2);
    await sleep(50);
    await log.append([message('first'), message('second')]);
    expect((await received).map((e) => e.seq)).toEqual([0, 1]);

    const seen: Sequenced[] = [];
    let sawFirst!: () => void;
    const first = new Promise<void>((resolve) => (sawFirst = resolve));
    const loop = (async () => {
      for await (const event of log.subscribe({ fromSeq: 1 })) {
        seen.push(event);
        sawFirst();
      }
    })();
    // Closed once the subscription delivered (a fixed sleep lost that race on a loaded box).
    await first;
    await store.close();
    await loop;
    expect(seen.map((e) => e.seq)).toEqual([1]);
  });
});

describe('EventStoreDB store: racing instances', () => {
  it('keeps invariant 8 and a gapless seq when three instances race deletions against recalls', async () => {
    const { events, state } = await raceDeletionsAgainstRecalls([
      open().log(),
      open().log(),
      open().log(),
    ]);
    for (const recall of events.filter((e) => e.kind === 'recall')) {
      for (const id of recall.recalled) {
        const deletion = state.deleted[id];
        expect(deletion === undefined || deletion.seq > recall.seq).toBe(true);
      }
    }
  });

  it('retries on a moved stream, but reports EXPECTED_SEQ_MISMATCH when the caller gave a position', async () => {
    const peer = rawClient();
    let peerWrites = 0;
    const client = racedClient(async () => {
      if (peerWrites++ === 0) await writeRaw(peer, message('the peer was first'));
    });
    const log = openOn(client).log();

    const [mine] = await log.append([message('mine')]);
    peerWrites = 0;
    const stale = await rejectionOf(log.append([message('late')], { expectedLastSeq: 1 }));

    expect(mine!.seq).toBe(1);
    expect(stale.code).toBe('EXPECTED_SEQ_MISMATCH');
    expect((await readAll(log)).map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it('gives up with APPEND_CONFLICT after maxAppendAttempts when the stream never holds still', async () => {
    const peer = rawClient();
    const client = racedClient(async () => void (await writeRaw(peer, message('again'))));
    const log = openOn(client, { maxAppendAttempts: 3 }).log();

    const error = await rejectionOf(log.append([message('never lands')]));

    expect(error.code).toBe('APPEND_CONFLICT');
    expect(error.message).toContain('3 append attempts');
  });

  it('lets the guard, not the server’s id idempotency, answer an id another writer stored first', async () => {
    const peer = rawClient();
    const mine = message('my content');
    const theirs = { ...mine, content: 'their content, same id' };
    const conflicted = racedClient(() => writeRaw(peer, theirs).then(() => undefined));
    const conflict = await rejectionOf(openOn(conflicted).log().append([mine]));

    const same = message('same everywhere');
    const duplicated = racedClient(() => writeRaw(peer, same, 'memory-dup').then(() => undefined));
    const stored = await openOn(duplicated).log('dup').append([same]);

    expect(conflict.code).toBe('ID_CONFLICT');
    expect(idsIn(await rawEvents(peer, 'memory-default'))).toEqual([mine.id]);
    expect(stored).toEqual([{ ...same, seq: 0 }]);
    expect(await rawEvents(peer, 'memory-dup')).toHaveLength(1);
  });
});

describe.each<PeerLayout>(['content-addressed', '0.2.0'])(
  'EventStoreDB store: the server’s id idempotency behind a warm id index, against a %s peer',
  (layout) => {
    // The index already holds seq 0, so the guard decides without a read and appends at revision
    // 0. A peer has meanwhile stored the same id at revision 1. The server's strong idempotency
    // check compares event ids only and answers "success" with revision 1, exactly what a fresh
    // write would answer, so the event id must carry the content: a peer's other content (or a
    // 0.2.0 peer's event id) makes the server refuse instead, and the guard decides on the log.
    const raceOnWarmIndex = async (peerWrites: (mine: MemoryEvent) => MemoryEvent) => {
      const peer = rawClient();
      let pending: MemoryEvent | undefined;
      const answers: AppendResult[] = [];
      const client = racedClient(
        async () => {
          const event = pending;
          pending = undefined;
          if (event !== undefined) await writeRaw(peer, event, 'memory-default', layout);
        },
        (result) => answers.push(result),
      );
      const log = openOn(client).log();
      const [first] = await log.append([message('warms the index')]);
      const mine = message('my content');
      pending = peerWrites(mine);
      const outcome = await log.append([mine]).then(
        (stored) => ({ stored }),
        (error: unknown) => ({ error: error as { code?: string } }),
      );
      const raw = await rawEvents(peer, 'memory-default');
      return { first: first!, mine, outcome, answers, raw };
    };

    it('rejects with ID_CONFLICT an id the peer stored with other content', async () => {
      const { first, mine, outcome, answers, raw } = await raceOnWarmIndex((event) => ({
        ...event,
        content: 'their content, same id',
      }));

      expect(answers).toHaveLength(1);
      expect('error' in outcome && outcome.error.code).toBe('ID_CONFLICT');
      expect(idsIn(raw)).toEqual([first.id, mine.id]);
      expect(raw[1]!.event!.data).toMatchObject({ content: 'their content, same id' });
    });

    it('returns the peer’s stored event and writes nothing when it stored the same id with the same content', async () => {
      const { mine, outcome, raw } = await raceOnWarmIndex((event) => event);

      expect(outcome).toEqual({ stored: [{ ...mine, seq: 1 }] });
      expect(raw).toHaveLength(2);
      expect(raw[1]!.event!.id).toBe(layout === '0.2.0' ? mine.id : addressOf(mine));
    });
  },
);

describe('EventStoreDB store: vendor errors are translated', () => {
  const password = 's3cret';
  const withCredentials = () => `esdb://admin:${password}@127.0.0.1:${server.port}?tls=false`;

  it('reports a stopped server as STORE_UNAVAILABLE naming host:port and never the password', async () => {
    const store = open({}, withCredentials());
    const log = store.log();
    await log.append([message('while up')]);
    await server.stop();

    const failures = [
      await rejectionOf(log.append([message('while down')])),
      await rejectionOf(readAll(log)),
      await rejectionOf(log.get(message().id)),
      await rejectionOf(log.lastSeq()),
      await rejectionOf(store.memoryIds()),
    ];

    for (const failure of failures) {
      expect(failure.code).toBe('STORE_UNAVAILABLE');
      expect(failure.message).toContain(`127.0.0.1:${server.port}`);
      expect(failure.message).not.toContain(password);
      expect((failure as Error).cause).toBeDefined();
    }
    expect(store.description).toBe(`EventStoreDB esdb://127.0.0.1:${server.port}`);
  });

  it('rejects an event of unknown type written by another tool with EVENT_DECODE_FAILED, never skipping it', async () => {
    const log = open().log();
    await log.append([message('fine')]);
    await rawClient().appendToStream('memory-default', jsonEvent({ type: 'Mystery', data: {} }));

    const onRead = await rejectionOf(readAll(log));
    const onAppend = await rejectionOf(log.append([message('after the mystery')]));
    const onSubscribe = await rejectionOf(take(log.subscribe(), 3));

    expect(onRead.code).toBe('EVENT_DECODE_FAILED');
    expect(onRead.message).toContain('unknown type "Mystery"');
    expect(onAppend.code).toBe('EVENT_DECODE_FAILED');
    expect(onSubscribe.code).toBe('EVENT_DECODE_FAILED');
  });

  it('fails with STORE_CLOSED after close, and leaves a caller-supplied client open', async () => {
    const client = rawClient();
    const store = openOn(client);
    const log = store.log();
    await log.append([message()]);
    await store.close();

    expect((await rejectionOf(log.append([message()]))).code).toBe('STORE_CLOSED');
    expect((await rejectionOf(readAll(log))).code).toBe('STORE_CLOSED');
    expect(await rawEvents(client, 'memory-default')).toHaveLength(1);
  });

  it('closes cleanly after a read the caller left early', async () => {
    const store = open();
    const log = store.log();
    await log.append(Array.from({ length: 50 }, (_, i) => message(`m${i}`)));
    for await (const event of log.read()) if (event.seq === 2) break;
    await store.close();
  });
});

describe('EventStoreDB store: stream layout', () => {
  it('writes memory x to stream memory-x, revision = seq, event id = content address, type = kind, JSON data without seq', async () => {
    const log = open().log('layout');
    const m = message();
    const stored = await log.append([m, recallOf([m.id]), deletionOf([m.id]), doc()]);

    const raw = await rawEvents(rawClient(), 'memory-layout');

    expect(raw.map((r) => r.event!.revision)).toEqual([0n, 1n, 2n, 3n]);
    expect(idsIn(raw)).toEqual(stored.map((e) => e.id));
    expect(raw.map((r) => r.event!.id)).toEqual(stored.map(addressOf));
    expect(raw.map((r) => r.event!.metadata)).toEqual(
      stored.map((event) => ({ schemaVersion: encodeEvent(event).version })),
    );
    expect(raw.map((r) => r.event!.type)).toEqual(['Message', 'Recall', 'Deletion', 'Document']);
    expect(raw.every((r) => r.event!.isJson)).toBe(true);
    const { seq: _seq, ...withoutSeq } = stored[0]!;
    expect(raw[0]!.event!.data).toEqual(withoutSeq);
    expect(raw[0]!.event!.data).not.toHaveProperty('seq');
  });
});
