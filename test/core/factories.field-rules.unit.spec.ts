import {
  createDeletion,
  createDocument,
  createMessage,
  createRecall,
  LIMITS,
} from '../../src/core/index.js';
import {
  BLANK,
  expectFailures,
  HEX64,
  ID_A,
  ID_B,
  NOT_UUID,
  validationErrorOf,
  WHITESPACE,
} from './factories.fixtures.js';

describe('event factories', () => {
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
});
