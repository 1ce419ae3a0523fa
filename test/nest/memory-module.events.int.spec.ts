/**
 * Subscriptions (MemoryEvents.changes$, applied$, @EventsHandler on the EventBus), the
 * retention sweeper, and shutdown.
 */
import { Injectable } from '@nestjs/common';
import { EventsHandler, type IEventHandler } from '@nestjs/cqrs';
import { filter, firstValueFrom, timeout, toArray } from 'rxjs';
import type { Sequenced } from '../../src/core/index.js';
import {
  GetEventQuery,
  GetMemoryStateQuery,
  MemoryEventApplied,
  MemoryEvents,
  ReadEventsQuery,
  RecordMessageCommand,
} from '../../src/nest.js';
import { openInMemoryStore } from '../../src/store/in-memory/in-memory.event-log.js';
import {
  eventually,
  nestStoreKinds,
  useMemoryApp,
  startMemoryApp,
  type MemoryApp,
} from './nest-stores.js';

const kinds = nestStoreKinds();

@Injectable()
@EventsHandler(MemoryEventApplied)
class AppliedRecorder implements IEventHandler<MemoryEventApplied> {
  readonly received: MemoryEventApplied[] = [];
  handle(event: MemoryEventApplied): void {
    this.received.push(event);
  }
}

const say = (app: MemoryApp, memoryId: string | undefined, content: string) =>
  app.commands.execute(new RecordMessageCommand(memoryId, { speaker: 'u', content }));

describe.each(kinds)('MemoryModule subscriptions on $name', (kind) => {
  const app = useMemoryApp(kind, { providers: [AppliedRecorder] });

  it('changes$ replays a memory from a seq, then delivers every later event once, in order', async () => {
    await say(app, 'm1', 'a');
    await say(app, 'm1', 'b');
    const received: Sequenced[] = [];
    const subscription = app.moduleRef
      .get(MemoryEvents)
      .changes$('m1', { fromSeq: 1 })
      .subscribe((event) => received.push(event));
    await say(app, 'm1', 'c');
    await say(app, 'other', 'not in m1');
    await say(app, 'm1', 'd');
    await eventually(() => received.length >= 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    subscription.unsubscribe();
    const log = await app.queries.execute(new ReadEventsQuery('m1'));
    expect(received).toEqual(log.slice(1));
    expect(received.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('publishes MemoryEventApplied on the EventBus to an @EventsHandler for every applied event', async () => {
    const first = await say(app, undefined, 'one');
    const second = await say(app, 'notes', 'two');
    const third = await say(app, undefined, 'three');
    const recorder = app.moduleRef.get(AppliedRecorder);
    await eventually(() => recorder.received.length >= 3);
    expect(recorder.received.every((e) => e instanceof MemoryEventApplied)).toBe(true);
    const byMemory = (id: string) =>
      recorder.received.filter((e) => e.memoryId === id).map((e) => e.event);
    expect(byMemory('default')).toEqual([first, third]);
    expect(byMemory('notes')).toEqual([second]);
  });

  it('MemoryEvents.applied$ emits each applied event as a MemoryEventApplied', async () => {
    await say(app, undefined, 'warm up'); // read models of `default` start here
    const events = app.moduleRef.get(MemoryEvents);
    const next = firstValueFrom(events.applied$.pipe(timeout(5000)));
    const written = await say(app, undefined, 'watched');
    expect(await next).toEqual(new MemoryEventApplied('default', written));
  });
});

describe('MemoryModule retention and shutdown', () => {
  let app: MemoryApp | undefined;
  afterEach(async () => {
    await app?.moduleRef.close();
    app = undefined;
  });

  it('sweeps expired content with a Deletion by retention-policy, on the injected clock', async () => {
    app = await startMemoryApp({
      store: { kind: 'in-memory' },
      retention: { everyMs: 20, now: () => new Date('2026-06-01T00:00:00Z') },
    });
    const memoryEvents = app.moduleRef.get(MemoryEvents);
    const short = await app.commands.execute(
      new RecordMessageCommand(undefined, {
        speaker: 'u',
        content: 'temp',
        retainUntil: '2026-06-01T00:00:00Z',
      }),
    );
    const kept = await app.commands.execute(
      new RecordMessageCommand(undefined, {
        speaker: 'u',
        content: 'keep',
        retainUntil: '2026-06-02T00:00:00Z',
      }),
    );
    const deletion = await firstValueFrom(
      memoryEvents.changes$('default').pipe(
        filter((e) => e.kind === 'deletion'),
        timeout(5000),
      ),
    );
    expect(deletion).toMatchObject({
      kind: 'deletion',
      targets: [short.id],
      requestedBy: 'retention-policy',
      reason: 'retainUntil 2026-06-01T00:00:00.000Z has passed',
    });
    expect((await app.queries.execute(new GetEventQuery(undefined, short.id))).deleted).toBe(true);
    const state = await app.queries.execute(new GetMemoryStateQuery(undefined));
    expect(state.visibleMessages).toEqual([kept]);
  });

  it('on close completes applied$ and closes the store once, an existing store too', async () => {
    const store = openInMemoryStore();
    let closes = 0;
    const counted = {
      ...store,
      log: store.log.bind(store),
      close: async () => {
        closes++;
        await store.close();
      },
    };
    app = await startMemoryApp({
      store: { kind: 'existing', store: counted },
      retention: { everyMs: 10 },
    });
    await say(app, undefined, 'x');
    const applied = firstValueFrom(app.moduleRef.get(MemoryEvents).applied$.pipe(toArray()));
    await app.moduleRef.close();
    app = undefined;
    expect(closes).toBe(1);
    expect(await applied).toEqual([]);
  });
});
