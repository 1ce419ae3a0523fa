import { createSearchIndex, normalizeTimestamp, replay } from '../../src/core/index.js';
import { sequenced } from '../support/arbitraries.js';
import { deletionOf, message } from '../support/events.js';

describe('regressions found by the core suite', () => {
  it.each([
    ['0050-06-15T00:00:00Z', '0050-06-15T00:00:00.000Z'],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
    ['0099-12-31T23:00:00-02:00', '0100-01-01T01:00:00.000Z'],
  ])('normalizes the year-0-99 timestamp %s to %s, not to the 1900s', (input, expected) => {
    expect(normalizeTimestamp(input)).toEqual({ ok: true, value: expected });
  });

  it('returns no hits for limit 0', () => {
    const index = createSearchIndex();
    index.add({ ...message('alpha'), seq: 0 });
    expect(index.search('alpha', { limit: 0 })).toEqual([]);
  });

  it('rejects, after resuming from a snapshot, a deletion whose id repeats one before the snapshot', () => {
    const [a, b] = [message('a'), message('b')];
    const d = deletionOf([a.id]);
    const reused = deletionOf([b.id], { id: d.id });
    const log = sequenced([a, b, d, reused]);
    expect(() => replay(log)).toThrow(/repeats an id already in the log/);
    expect(() => replay(log.slice(3), { from: replay(log.slice(0, 3)) })).toThrow(
      /repeats an id already in the log/,
    );
  });
});
