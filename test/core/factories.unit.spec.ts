import { validate as isUuid, version as uuidVersion } from 'uuid';
import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  isMemoryError,
  LIMITS,
  parseEvent,
  type MemoryError,
} from '../../src/core/index.js';

const ID_A = '0193a4c2-0000-7000-8000-00000000000a';
const ID_B = '0193a4c2-0000-7000-8000-00000000000b';
const NOW = new Date(Date.UTC(2026, 2, 1, 12, 0, 0, 250));
const fixed = { now: () => NOW };
const HEX64 = 'ab'.repeat(32);
const WHITESPACE = ['', ' ', '   ', '\n\t', '\u00a0\u2003'];
const BLANK = 'must contain at least one non-whitespace character';
const NOT_UUID = 'must be a UUID (8-4-4-4-12 hex digits)';

/** Runs `create` and returns the MemoryError it throws; fails when it does not throw one. */
function validationErrorOf(create: () => unknown): MemoryError {
  try {
    create();
  } catch (error) {
    if (isMemoryError(error, 'VALIDATION_FAILED')) return error;
    throw error;
  }
  throw new Error('expected VALIDATION_FAILED, but the event was created');
}

/** Every `path: rule` the error lists, in its `issues` and in its message. */
function expectFailures(error: MemoryError, what: string, failures: readonly string[]): void {
  const listed = error.issues.map((issue) => `${issue.path}: ${issue.message}`);
  expect([...listed].sort()).toEqual([...failures].sort());
  expect(error.message.startsWith(`Invalid ${what}: `)).toBe(true);
  for (const failure of failures) expect(error.message).toContain(failure);
}

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

  describe('field rules', () => {
    it('lists every failing field of a message, in the message and in issues', () => {
      // given a message breaking four rules at once
      const input = {
        speaker: '  ',
        content: '',
        timestamp: '2026-03-01T10:00:00',
        source: '\t',
        extra: true,
      } as unknown as Parameters<typeof createMessage>[0];
      // when it is created, then every failure is listed
      expectFailures(
        validationErrorOf(() => createMessage(input)),
        'message',
        [
          `speaker: ${BLANK}`,
          `content: ${BLANK}`,
          `source: ${BLANK}`,
          'timestamp: must carry a UTC offset (Z or ±hh:mm); a local time is ambiguous',
          '(root): Unrecognized key: "extra"',
        ],
      );
    });

    it('lists every failing field of a document', () => {
      const error = validationErrorOf(() =>
        createDocument({
          name: ' ',
          text: '\n',
          mediaType: '',
          sha256: HEX64.toUpperCase(),
          retainUntil: '2026-02-30T00:00:00Z',
        }),
      );
      expectFailures(error, 'document', [
        `name: ${BLANK}`,
        `text: ${BLANK}`,
        `mediaType: ${BLANK}`,
        'sha256: must be 64 lowercase hex digits',
        'retainUntil: is not a real calendar date and time',
      ]);
    });

    it('lists every failing field of a recall, naming the bad element of recalled', () => {
      const error = validationErrorOf(() =>
        createRecall({ query: '   ', recalled: [ID_A, 'not-a-uuid'], seq: -1 }),
      );
      expectFailures(error, 'recall', [
        `query: ${BLANK}`,
        `recalled.1: ${NOT_UUID}`,
        'seq: must be 0 or more',
      ]);
    });

    it('lists every failing field of a deletion', () => {
      const error = validationErrorOf(() =>
        createDeletion({
          targets: [],
          reason: '',
          id: 'nope',
          sessionId: 7 as unknown as string,
        }),
      );
      expectFailures(error, 'deletion', [
        'targets: must hold at least 1 id',
        `reason: ${BLANK}`,
        `id: ${NOT_UUID}`,
        'sessionId: Invalid input: expected string, received number',
      ]);
    });

    it.each(WHITESPACE)(
      'rejects the whitespace-only string %j in every non-empty field',
      (blank) => {
        expectFailures(
          validationErrorOf(() => createMessage({ speaker: blank, content: blank, source: blank })),
          'message',
          [`speaker: ${BLANK}`, `content: ${BLANK}`, `source: ${BLANK}`],
        );
        expectFailures(
          validationErrorOf(() => createDocument({ name: blank, text: blank, mediaType: blank })),
          'document',
          [`name: ${BLANK}`, `text: ${BLANK}`, `mediaType: ${BLANK}`],
        );
        expectFailures(
          validationErrorOf(() => createRecall({ query: blank, recalled: [] })),
          'recall',
          [`query: ${BLANK}`],
        );
        expectFailures(
          validationErrorOf(() => createDeletion({ targets: [ID_A], reason: blank })),
          'deletion',
          [`reason: ${BLANK}`],
        );
      },
    );

    it('accepts text surrounded by whitespace and keeps it unchanged', () => {
      expect(createMessage({ speaker: ' u ', content: '  hi\n' }).content).toBe('  hi\n');
    });

    it('rejects a deletion with duplicated targets', () => {
      expectFailures(
        validationErrorOf(() => createDeletion({ targets: [ID_A, ID_B, ID_A], reason: 'r' })),
        'deletion',
        ['targets: must not repeat an id'],
      );
    });

    it('rejects a deletion whose targets differ only by letter case (same id once lowercased)', () => {
      expectFailures(
        validationErrorOf(() =>
          createDeletion({ targets: [ID_A, ID_A.toUpperCase()], reason: 'r' }),
        ),
        'deletion',
        ['targets: must not repeat an id'],
      );
    });

    it('accepts a recall with no recalled ids', () => {
      expect(createRecall({ query: 'q', recalled: [] }).recalled).toEqual([]);
    });

    it.each([
      ['63 digits', 'a'.repeat(63)],
      ['65 digits', 'a'.repeat(65)],
      ['uppercase', 'A'.repeat(64)],
      ['a non-hex letter', 'g'.repeat(64)],
      ['empty', ''],
    ])('rejects a sha256 with %s', (_what, sha256) => {
      expectFailures(
        validationErrorOf(() => createDocument({ name: 'n', text: 't', sha256 })),
        'document',
        ['sha256: must be 64 lowercase hex digits'],
      );
    });

    it('accepts a sha256 of 64 lowercase hex digits', () => {
      expect(createDocument({ name: 'n', text: 't', sha256: HEX64 }).sha256).toBe(HEX64);
    });

    it('rejects a non-integer seq', () => {
      expectFailures(
        validationErrorOf(() => createMessage({ speaker: 'u', content: 'x', seq: 1.5 })),
        'message',
        ['seq: must be an integer'],
      );
    });

    it.each([
      ['message', 'speaker'],
      ['message', 'source'],
      ['message', 'sessionId'],
      ['message', 'actor'],
      ['document', 'name'],
      ['document', 'mediaType'],
      ['deletion', 'requestedBy'],
    ] as const)(
      'rejects a %s %s longer than the label limit and accepts one at it',
      (kind, field) => {
        const create = (value: string) => {
          switch (kind) {
            case 'message':
              return createMessage({ speaker: 'u', content: 'x', [field]: value });
            case 'document':
              return createDocument({ name: 'n', text: 't', [field]: value });
            case 'deletion':
              return createDeletion({ targets: [ID_A], reason: 'r', [field]: value });
          }
        };
        // given a value exactly at the limit, then it is accepted
        expect((create('y'.repeat(LIMITS.label)) as Record<string, unknown>)[field]).toHaveLength(
          LIMITS.label,
        );
        // given one character more, then only that field is reported, naming the limit
        const error = validationErrorOf(() => create('y'.repeat(LIMITS.label + 1)));
        expect(error.issues).toHaveLength(1);
        expect(error.issues[0]!.path).toBe(field);
        expect(error.issues[0]!.message).toContain(String(LIMITS.label));
        expect(error.message).toContain(`${field}: `);
      },
    );

    it('rejects a recall query longer than the query limit', () => {
      expectFailures(
        validationErrorOf(() =>
          createRecall({ query: 'q'.repeat(LIMITS.query + 1), recalled: [] }),
        ),
        'recall',
        [`query: must be at most ${LIMITS.query} characters`],
      );
    });

    it('rejects unknown keys on every kind', () => {
      const extra = { colour: 'red' } as object;
      for (const [what, create] of [
        ['message', () => createMessage({ speaker: 'u', content: 'x', ...extra })],
        ['document', () => createDocument({ name: 'n', text: 't', ...extra })],
        ['recall', () => createRecall({ query: 'q', recalled: [], ...extra })],
        ['deletion', () => createDeletion({ targets: [ID_A], reason: 'r', ...extra })],
      ] as const) {
        expectFailures(validationErrorOf(create), what, ['(root): Unrecognized key: "colour"']);
      }
    });

    it('accepts an empty sessionId and actor (they are labels, not non-empty fields)', () => {
      const event = createMessage({ speaker: 'u', content: 'x', sessionId: '', actor: '' });
      expect(event).toMatchObject({ sessionId: '', actor: '' });
    });
  });

  describe('ids', () => {
    it('lowercases the event id, recalled ids and deletion targets', () => {
      const message = createMessage({ speaker: 'u', content: 'x', id: ID_A.toUpperCase() });
      const recall = createRecall({ query: 'q', recalled: [ID_B.toUpperCase()] });
      const deletion = createDeletion({ targets: [ID_A.toUpperCase()], reason: 'r' });
      expect(message.id).toBe(ID_A);
      expect(recall.recalled).toEqual([ID_B]);
      expect(deletion.targets).toEqual([ID_A]);
    });

    it('accepts any valid UUID on import, not only v7 (v4 and nil)', () => {
      for (const id of [
        '9b2f6c1e-3d4a-4f5b-8c6d-7e8f9a0b1c2d',
        '00000000-0000-0000-0000-000000000000',
      ]) {
        expect(createMessage({ speaker: 'u', content: 'x', id }).id).toBe(id);
      }
    });

    it.each([
      '0193a4c2000070008000000000000000a',
      '0193a4c2-0000-7000-8000-00000000000',
      '{0193a4c2-0000-7000-8000-00000000000a}',
    ])('rejects the malformed id %j', (id) => {
      expectFailures(
        validationErrorOf(() => createMessage({ speaker: 'u', content: 'x', id })),
        'message',
        [`id: ${NOT_UUID}`],
      );
    });
  });

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
