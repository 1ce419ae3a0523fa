import { validate as isUuid, version as uuidVersion } from 'uuid';
import {
  createDeletion,
  createDeletionAndErasure,
  createDocument,
  createMessage,
  createRecall,
  erasureIdOf,
  parseEvent,
} from '../../src/core/index.js';
import {
  expectFailures,
  fixed,
  ID_A,
  ID_B,
  NOT_UUID,
  NOW,
  validationErrorOf,
} from './factories.fixtures.js';

describe('event factories', () => {
  describe('defaults', () => {
    it('gives a new message a UUID v7 id, the injected clock time, source unknown, seq/sessionId/actor null', () => {
      // when a message is created with only its own fields
      const event = createMessage({ speaker: 'user', content: 'hello' }, fixed);
      // then the common fields take their defaults
      expect(isUuid(event.id)).toBe(true);
      expect(uuidVersion(event.id)).toBe(7);
      expect(event).toEqual({
        kind: 'message',
        recordedBy: null,
        id: event.id,
        timestamp: '2026-03-01T12:00:00.250Z',
        seq: null,
        sessionId: null,
        source: 'unknown',
        actor: null,
        speaker: 'user',
        content: 'hello',
      });
    });

    it('gives every new event a different id', () => {
      const ids = Array.from(
        { length: 50 },
        () => createMessage({ speaker: 'u', content: 'x' }).id,
      );
      expect(new Set(ids).size).toBe(50);
    });

    it('reads the clock when no timestamp is given, and not otherwise', () => {
      let reads = 0;
      const now = () => {
        reads += 1;
        return NOW;
      };
      createMessage({ speaker: 'u', content: 'x' }, { now });
      createMessage({ speaker: 'u', content: 'x', timestamp: '2020-01-01T00:00:00Z' }, { now });
      expect(reads).toBe(1);
    });

    it('uses the injected id generator', () => {
      const event = createRecall({ query: 'q', recalled: [] }, { newId: () => ID_A });
      expect(event.id).toBe(ID_A);
    });

    it('defaults a document mediaType to text/plain and leaves sha256 and retainUntil out', () => {
      const event = createDocument({ name: 'a.md', text: 'body' }, fixed);
      expect(event.mediaType).toBe('text/plain');
      expect('sha256' in event).toBe(false);
      expect('retainUntil' in event).toBe(false);
    });

    it('keeps explicit common fields', () => {
      const event = createDeletion(
        {
          id: ID_A,
          timestamp: '2026-01-01T00:00:00+01:00',
          sessionId: 's1',
          source: 'chat',
          actor: 'agent-7',
          targets: [ID_B],
          reason: 'asked',
        },
        fixed,
      );
      expect(event).toMatchObject({
        id: ID_A,
        timestamp: '2025-12-31T23:00:00.000Z',
        sessionId: 's1',
        source: 'chat',
        actor: 'agent-7',
      });
    });

    it('treats an explicit undefined like an omitted field', () => {
      const event = createMessage(
        { speaker: 'u', content: 'x', id: undefined, source: undefined, actor: undefined },
        { ...fixed, newId: () => ID_A },
      );
      expect(event).toMatchObject({ id: ID_A, source: 'unknown', actor: null });
    });

    it('rejects an explicit invalid id rather than replacing it with a default', () => {
      const error = validationErrorOf(() =>
        createMessage({ speaker: 'u', content: 'x', id: '' }, { newId: () => ID_A }),
      );
      expectFailures(error, 'message', [`id: ${NOT_UUID}`]);
    });
  });

  describe('immutability', () => {
    it('returns a deeply frozen event', () => {
      const event = createRecall({ query: 'q', recalled: [ID_A] });
      expect(Object.isFrozen(event)).toBe(true);
      expect(Object.isFrozen(event.recalled)).toBe(true);
    });

    it('throws when a field of a created event is assigned (strict mode)', () => {
      const event = createMessage({ speaker: 'u', content: 'x' });
      expect(() => {
        (event as { content: string }).content = 'changed';
      }).toThrow(TypeError);
      expect(event.content).toBe('x');
    });

    it('throws when a deletion target list is pushed to', () => {
      const event = createDeletion({ targets: [ID_A], reason: 'r' });
      expect(() => (event.targets as string[]).push(ID_B)).toThrow(TypeError);
      expect(event.targets).toEqual([ID_A]);
    });

    it('does not freeze or share the caller’s input array', () => {
      const recalled = [ID_A];
      const event = createRecall({ query: 'q', recalled });
      recalled.push(ID_B);
      expect(Object.isFrozen(recalled)).toBe(false);
      expect(event.recalled).toEqual([ID_A]);
    });

    it('returns a deeply frozen event from parseEvent', () => {
      const event = parseEvent({
        kind: 'deletion',
        id: ID_A,
        timestamp: '2026-01-01T00:00:00Z',
        targets: [ID_B],
        reason: 'r',
      });
      expect(Object.isFrozen(event)).toBe(true);
      expect(event.kind === 'deletion' && Object.isFrozen(event.targets)).toBe(true);
    });
  });
});

describe('createDeletionAndErasure', () => {
  it('derives the Erasure from the Deletion, so the same Deletion always makes the same pair', () => {
    const input = {
      id: '01890000-0000-7000-8000-0000000000cc',
      timestamp: '2026-01-02T03:04:05Z',
      targets: ['01890000-0000-7000-8000-0000000000dd'],
      reason: 'asked to be forgotten',
      requestedBy: 'subject',
    };
    const [deletion, erasure] = createDeletionAndErasure(input);
    const [, again] = createDeletionAndErasure(input);
    expect(again).toEqual(erasure);
    expect(erasure).toMatchObject({
      kind: 'erasure',
      id: erasureIdOf(deletion.id),
      timestamp: deletion.timestamp,
      targets: deletion.targets,
      reason: deletion.reason,
      requestedBy: deletion.requestedBy,
    });
    expect(erasure.id).not.toBe(deletion.id);
    expect(erasureIdOf('01890000-0000-7000-8000-0000000000ce')).not.toBe(erasure.id);
  });
});
