/**
 * Rules the core schemas keep for every entry point (library, Nest, HTTP, CLI): text is valid
 * Unicode, a required text names something visible, and a memory id is not a path segment.
 */
import { createDeletion, createDocument, createMessage, MemoryId } from '../../src/core/index.js';
import { expectFailures, ID_A, validationErrorOf } from './factories.fixtures.js';

const LONE = 'must be valid Unicode text (no lone surrogate U+D800 to U+DFFF)';
const CONTROL_ONLY =
  'must contain at least one character that is neither whitespace nor a control character';

describe('text rules of the core schemas', () => {
  it('rejects a speaker made only of NUL characters, naming the field and the rule', () => {
    // given a speaker of NULs and a content of NUL and whitespace
    const input = { speaker: '\u0000', content: '\u0000 \u0007\n' };
    // when the message is created, then both fields are named with the rule
    expectFailures(
      validationErrorOf(() => createMessage(input)),
      'message',
      [`speaker: ${CONTROL_ONLY}`, `content: ${CONTROL_ONLY}`],
    );
  });

  it('accepts a text that holds a control character beside a visible one', () => {
    expect(createMessage({ speaker: 'bob\u0000', content: 'a\tb' }).speaker).toBe('bob\u0000');
  });

  it('rejects a lone surrogate in any text field, required or optional', () => {
    // given lone high and low surrogates in content, name, actor, sessionId and requestedBy
    expectFailures(
      validationErrorOf(() =>
        createMessage({
          speaker: 'bob',
          content: 'broken \ud83d',
          actor: '\ude00',
          sessionId: 'x\udfff',
        }),
      ),
      'message',
      [`content: ${LONE}`, `actor: ${LONE}`, `sessionId: ${LONE}`],
    );
    expectFailures(
      validationErrorOf(() => createDocument({ name: '\ud800', text: 'ok' })),
      'document',
      [`name: ${LONE}`],
    );
    expectFailures(
      validationErrorOf(() =>
        createDeletion({ targets: [ID_A], reason: 'gdpr', requestedBy: 'a\udbff' }),
      ),
      'deletion',
      [`requestedBy: ${LONE}`],
    );
  });

  it('accepts surrogate pairs (characters outside the BMP)', () => {
    expect(createMessage({ speaker: '\ud83d\ude00', content: 'ok 𝄞' }).speaker).toBe('😀');
  });
});

describe('memory id rules', () => {
  it.each(['.', '..'])('rejects the path segment %j as a memory id', (id) => {
    const result = MemoryId.safeParse(id);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['must not be "." or ".."']);
  });

  it.each(['...', '.a', 'a.', '..b', 'default'])('accepts %j', (id) => {
    expect(MemoryId.parse(id)).toBe(id);
  });
});
