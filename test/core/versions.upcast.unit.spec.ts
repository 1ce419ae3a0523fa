import {
  EVENT_KINDS,
  EVENT_VERSIONS,
  UPCASTERS,
  isMemoryError,
  upcast,
  type UpcasterTable,
} from '../../src/core/index.js';

const at = { where: 'test log', seq: 7 };

describe('event schema versions', () => {
  it('name, for every kind, the version the upcasters lift to (writers and readers agree)', () => {
    for (const kind of EVENT_KINDS) {
      const steps = Object.keys(UPCASTERS[kind]).map(Number);
      expect(EVENT_VERSIONS[kind]).toBe(steps.length === 0 ? 1 : Math.max(...steps) + 1);
      // One upcaster per version below the current: no hole in the chain.
      expect(steps.sort()).toEqual(
        Array.from({ length: EVENT_VERSIONS[kind] - 1 }, (_, i) => i + 1),
      );
    }
  });

  it('leave an event of the current version as it is', () => {
    const fields = { speaker: 'user', content: 'hello' };
    expect(upcast('message', EVENT_VERSIONS.message, fields, at)).toBe(fields);
  });

  it('read a 0.1.0 (version 1) message and document as the current shape: plain text stays valid, nobody recorded', () => {
    const message = { speaker: 'user', content: 'hello' };
    const document = { name: 'a.txt', text: 'body', mediaType: 'text/plain' };
    expect(upcast('message', 1, message, at)).toEqual({ ...message, recordedBy: null });
    expect(upcast('document', 1, document, at)).toEqual({ ...document, recordedBy: null });
  });

  it('read an event written before principals (0.2.0) with recordedBy null, whatever its kind', () => {
    const fields = { reason: 'asked', targets: ['x'] };
    expect(upcast('message', 2, { speaker: 'u', content: 'c' }, at)).toEqual({
      speaker: 'u',
      content: 'c',
      recordedBy: null,
    });
    expect(upcast('deletion', 1, fields, at)).toEqual({ ...fields, recordedBy: null });
    expect(upcast('erasure', 1, fields, at)).toEqual({ ...fields, recordedBy: null });
  });

  it('read a recall written before retrieval was recorded as lexical (BM25), nobody recorded', () => {
    const fields = { query: 'q', recalled: [] };
    expect(upcast('recall', 1, fields, at)).toEqual({
      ...fields,
      recordedBy: null,
      retrieval: { method: 'lexical', model: null, dimensions: null, fusion: null, vectors: null },
    });
  });

  it('read a recall written before the vector search was recorded (version 2) with vectors null: not known, whatever the method', () => {
    const retrieval = {
      method: 'hybrid',
      model: 'all-minilm',
      dimensions: 384,
      fusion: { method: 'rrf', k: 60, weights: { lexical: 1, semantic: 1 } },
    };
    const fields = { query: 'q', recalled: ['x'], recordedBy: null, retrieval };
    expect(upcast('recall', 2, fields, at)).toEqual({
      ...fields,
      retrieval: { ...retrieval, vectors: null },
    });
  });

  it.each([4, 99])(
    'refuse version %s, written by a newer memledger, naming it and the upgrade',
    (v) => {
      let caught: unknown;
      try {
        upcast('message', v, {}, at);
      } catch (error) {
        caught = error;
      }
      expect(isMemoryError(caught, 'EVENT_VERSION_UNSUPPORTED')).toBe(true);
      expect((caught as Error).message).toContain(`schema version ${v}`);
      expect((caught as Error).message).toContain('newer memledger');
      expect((caught as Error).message).toContain('test log seq 7');
    },
  );

  it.each([0, -1, 1.5, '2', null])('refuse %p, which no memledger writes as a version', (v) => {
    expect(() => upcast('recall', v, {}, at)).toThrow(
      expect.objectContaining({ code: 'EVENT_VERSION_UNSUPPORTED' }) as Error,
    );
  });

  it('run every step from the stored version to the current one, in order', () => {
    // A table with a real shape change (a renamed field, then a new one with a default), to
    // show the chain runs each step once, oldest first, and never touches the input.
    const table: UpcasterTable = {
      ...UPCASTERS,
      recall: {
        1: ({ text, ...rest }) => ({ ...rest, query: text }),
        2: (fields) => ({ ...fields, recalled: fields.recalled ?? [] }),
      },
    };
    const v1 = Object.freeze({ text: 'what is the plan' });
    expect(upcast('recall', 1, v1, at, table)).toEqual({ query: 'what is the plan', recalled: [] });
    expect(upcast('recall', 2, { query: 'q' }, at, table)).toEqual({ query: 'q', recalled: [] });
    expect(upcast('recall', 3, { query: 'q', recalled: ['x'] }, at, table)).toEqual({
      query: 'q',
      recalled: ['x'],
    });
    expect(v1).toEqual({ text: 'what is the plan' });
    expect(() => upcast('recall', 4, {}, at, table)).toThrow(
      expect.objectContaining({ code: 'EVENT_VERSION_UNSUPPORTED' }) as Error,
    );
  });
});
