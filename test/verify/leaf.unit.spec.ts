/**
 * The canonical leaf memledger/leaf/v1: what it binds, and what it refuses to encode (with
 * `LEAF_INVALID` naming the field), so no two events share a leaf and no leaf is ambiguous.
 */
import {
  isVerifyError,
  leafBody,
  leafBytes,
  leafText,
  parseLeaf,
  type LeafInput,
} from '../../src/verify/index.js';

const input: LeafInput = {
  memory: 'team-1',
  seq: 4,
  id: '00000000-0000-7000-8000-000000000005',
  type: 'Message',
  version: 2,
  body: { timestamp: '2026-01-01T00:00:00.000Z', speaker: 'user', content: 'hi', sessionId: null },
};

function codeAndField(work: () => unknown): [string | undefined, unknown] {
  try {
    work();
  } catch (error) {
    return isVerifyError(error)
      ? [error.code, error.details.field ?? error.details.path]
      : [String(error), undefined];
  }
  return [undefined, undefined];
}

describe('memledger/leaf/v1', () => {
  it('is the header line and the canonical JSON of the memory, seq, id, type, version and body', () => {
    expect(leafText(input)).toBe(
      'memledger/leaf/v1\n{"body":{"content":"hi","sessionId":null,"speaker":"user","timestamp":"2026-01-01T00:00:00.000Z"},"id":"00000000-0000-7000-8000-000000000005","memory":"team-1","seq":4,"type":"Message","version":2}',
    );
    expect(new TextDecoder().decode(leafBytes(input))).toBe(leafText(input));
  });

  it('changes with every field it binds', () => {
    const variants: LeafInput[] = [
      { ...input, memory: 'team-2' },
      { ...input, seq: 5 },
      { ...input, id: '00000000-0000-7000-8000-000000000006' },
      { ...input, type: 'Document' },
      { ...input, version: 1 },
      { ...input, body: { ...input.body, timestamp: '2026-01-01T00:00:00.001Z' } },
      { ...input, body: { ...input.body, sessionId: 's' } },
      { ...input, body: { ...input.body, actor: 'a' } },
      { ...input, body: { ...input.body, content: 'hi ' } },
    ];
    const texts = new Set([input, ...variants].map(leafText));
    expect(texts.size).toBe(variants.length + 1);
  });

  it('takes the stored fields without seq, id and kind as the body', () => {
    const stored = {
      kind: 'message',
      id: input.id,
      seq: 4,
      timestamp: 't',
      speaker: 'user',
      sealed: 'v1.x',
    };
    expect(leafBody(stored)).toEqual({ timestamp: 't', speaker: 'user', sealed: 'v1.x' });
  });

  it.each([
    ['memory', { memory: 'has space' }],
    ['memory', { memory: '' }],
    ['memory', { memory: 'x'.repeat(129) }],
    ['seq', { seq: -1 }],
    ['seq', { seq: 1.5 }],
    ['id', { id: '' }],
    ['type', { type: 'Note' }],
    ['version', { version: 0 }],
    ['body', { body: null }],
    ['body', { body: [] }],
    ['body', { body: { id: 'x' } }],
    ['body', { body: { kind: 'message' } }],
    ['body', { body: { seq: 3 } }],
    ['$.body.content', { body: { content: 'half \ud83d' } }],
    ['$.body.score', { body: { score: Number.NaN } }],
  ])('refuses a bad %s', (field, change) => {
    const [code, where] = codeAndField(() => leafText({ ...input, ...change } as LeafInput));
    expect(code).toBe('LEAF_INVALID');
    expect(where).toBe(field);
  });
});

describe('reading a leaf back', () => {
  it('gives back what the leaf binds', () => {
    expect(parseLeaf(leafBytes(input))).toEqual(input);
  });

  it.each([
    ['another header', (t: string) => t.replace('memledger/leaf/v1', 'memledger/leaf/v2')],
    ['JSON that does not parse', (t: string) => `${t}}`],
    ['a member too many', (t: string) => t.replace('"version":2}', '"version":2,"x":1}')],
    [
      'members out of order',
      (t: string) => t.replace('"seq":4,"type":"Message"', '"type":"Message","seq":4'),
    ],
    ['a space', (t: string) => t.replace('"seq":4', '"seq": 4')],
    ['an escaped character JCS writes raw', (t: string) => t.replace('"hi"', '"h\\u0069"')],
  ])('refuses %s', (_what, change) => {
    const bytes = new TextEncoder().encode(change(leafText(input)));
    expect(() => parseLeaf(bytes)).toThrow(
      expect.objectContaining({ code: 'LEAF_INVALID' }) as Error,
    );
  });
});
