import { replay, startFold, type MemoryState } from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { message, recallOf } from '../support/events.js';
import { errorOf, ids, story } from './replay.fixtures.js';

const UNKNOWN_ID = '00000000-0000-7000-8000-0000000abcde';

describe('startFold', () => {
  it('keeps every state it handed out as it was, while the fold goes on', () => {
    // given a fold asked for its state after every event
    const { log } = story();
    const fold = startFold();
    const states: MemoryState[] = [];
    for (const event of log) {
      fold.apply(event);
      states.push(fold.state());
    }
    // then each state still equals the replay up to its seq, recall stats read only now included
    states.forEach((state, n) => expect(state).toEqual(replay(log, { upToSeq: n })));
  });

  it('keeps the recall stats of a state unread until after later recalls', () => {
    const { d1, log } = story();
    const fold = startFold();
    log.slice(0, 4).forEach((event) => fold.apply(event));
    const before = fold.state();
    log.slice(4).forEach((event) => fold.apply(event));
    // when read only now, the stats are still those at seq 3
    expect(before.recallStats[d1.id]).toEqual({
      count: 1,
      lastRecalledAt: log[3]!.timestamp,
      lastRecalledSeq: 3,
    });
    expect(fold.state().recallStats[d1.id]!.count).toBe(2);
  });

  it('gives the same state object until the next event', () => {
    const { log } = story();
    const fold = startFold();
    fold.apply(log[0]!);
    expect(fold.state()).toBe(fold.state());
    fold.apply(log[1]!);
    expect(ids(fold.state().documents)).toEqual([log[1]!.id]);
  });

  it('shows every applied event in view(), also after a state was handed out', () => {
    const { m1, m2, log } = story();
    const fold = startFold();
    log.slice(0, 3).forEach((event) => fold.apply(event));
    const state = fold.state();
    log.slice(3).forEach((event) => fold.apply(event));
    const view = fold.view();
    expect(ids(view.messages)).toEqual([m1.id, m2.id, log[6]!.id]);
    expect([...view.deleted.keys()]).toEqual([m1.id]);
    expect(view.deletedMessageSeqs).toEqual([4]);
    expect(view.lastSeq).toBe(6);
    expect(ids(state.messages)).toEqual([m1.id, m2.id]);
  });

  it('keeps its last good state when an event is rejected', () => {
    const m = message('kept');
    const log = sequenced([m, recallOf([m.id]), recallOf([m.id, UNKNOWN_ID])]);
    const fold = startFold();
    fold.apply(log[0]!);
    fold.apply(log[1]!);
    const good = fold.state();
    errorOf('LOG_INVARIANT_VIOLATED', () => fold.apply(log[2]!));
    expect(fold.state()).toBe(good);
    expect(good.recallStats[m.id]!.count).toBe(1);
  });
});

describe('replay state as data', () => {
  it('serializes to JSON and spreads with its recall stats', () => {
    const { m1, d1, log } = story();
    const state = replay(log);
    const json = JSON.parse(JSON.stringify(state)) as MemoryState;
    expect(Object.keys(json)).toEqual(Object.keys(state));
    expect(json.recallStats[d1.id]!.count).toBe(2);
    expect({ ...state }.recallStats[m1.id]!.count).toBe(1);
    expect(structuredClone(state)).toEqual(state);
  });
});
