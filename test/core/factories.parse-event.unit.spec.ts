import { parseEvent } from '../../src/core/index.js';
import { BLANK, expectFailures, ID_A, ID_B, validationErrorOf } from './factories.fixtures.js';

describe('event factories', () => {
  describe('parseEvent', () => {
    it('keeps an imported event’s own id and timestamp and fills the other defaults', () => {
      // given an event exported elsewhere, with an old timestamp and an offset
      const wire = {
        kind: 'message',
        id: ID_A.toUpperCase(),
        timestamp: '2019-06-01T09:30:00.5+02:00',
        speaker: 'user',
        content: 'from the archive',
      };
      // when it is parsed
      const event = parseEvent(wire);
      // then its id (lowercased) and instant are kept, not regenerated
      expect(event).toEqual({
        kind: 'message',
        id: ID_A,
        timestamp: '2019-06-01T07:30:00.500Z',
        seq: null,
        sessionId: null,
        source: 'unknown',
        actor: null,
        recordedBy: null,
        speaker: 'user',
        content: 'from the archive',
      });
    });

    it('rejects an imported event without id or timestamp instead of generating them', () => {
      const error = validationErrorOf(() =>
        parseEvent({ kind: 'recall', query: 'q', recalled: [] }),
      );
      expect(error.message.startsWith('Invalid event: ')).toBe(true);
      expect(error.issues.map((i) => i.path).sort()).toEqual(['id', 'timestamp']);
    });

    it('rejects an unknown kind', () => {
      const error = validationErrorOf(() =>
        parseEvent({ kind: 'note', id: ID_A, timestamp: '2026-01-01T00:00:00Z' }),
      );
      expect(error.issues.map((i) => i.path)).toEqual(['kind']);
    });

    it('applies the same field rules as the factories', () => {
      const error = validationErrorOf(() =>
        parseEvent({
          kind: 'document',
          id: ID_A,
          timestamp: '2026-01-01T00:00:00Z',
          name: '',
          text: 't',
          sha256: 'xyz',
        }),
      );
      expectFailures(error, 'event', [`name: ${BLANK}`, 'sha256: must be 64 lowercase hex digits']);
    });

    it('keeps a seq carried by the input', () => {
      const event = parseEvent({
        kind: 'deletion',
        id: ID_A,
        timestamp: '2026-01-01T00:00:00Z',
        seq: 4,
        targets: [ID_B],
        reason: 'r',
      });
      expect(event.seq).toBe(4);
    });
  });
});
