/**
 * The embeddings options the environment names beside the provider (src/memory/semantic-options.ts):
 * the fallback, the quantization, the oversampling and the cells, each refused with the variable's name and
 * the rule it broke.
 */
import { isMemoryError, type MemoryError } from '../../src/core/index.js';
import { embeddingsOptionsFromEnv } from '../../src/memory/index.js';

const provider = {
  MEMLEDGER_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1',
  MEMLEDGER_EMBEDDINGS_MODEL: 'all-minilm',
  MEMLEDGER_EMBEDDINGS_DIMENSIONS: '384',
};

function refusal(env: NodeJS.ProcessEnv): { path: string | undefined; message: string } {
  try {
    embeddingsOptionsFromEnv(env);
  } catch (error) {
    if (!isMemoryError(error, 'VALIDATION_FAILED')) throw error;
    return {
      path: (error as MemoryError).issues[0]?.path,
      message: (error as MemoryError).message,
    };
  }
  throw new Error('expected VALIDATION_FAILED');
}

describe('embeddings options from the environment', () => {
  it('are undefined without a provider, whatever else is set', () => {
    expect(
      embeddingsOptionsFromEnv({ MEMLEDGER_EMBEDDINGS_QUANTIZATION: 'binary' }),
    ).toBeUndefined();
  });

  it('read the fallback, the quantization and the oversampling', () => {
    const options = embeddingsOptionsFromEnv({
      ...provider,
      MEMLEDGER_EMBEDDINGS_FALLBACK: 'Lexical',
      MEMLEDGER_EMBEDDINGS_QUANTIZATION: 'binary',
      MEMLEDGER_EMBEDDINGS_OVERSAMPLE: ' 8 ',
    });
    expect(options).toMatchObject({
      onUnavailable: 'lexical',
      quantization: 'binary',
      oversample: 8,
    });
    expect(embeddingsOptionsFromEnv(provider)).not.toHaveProperty('oversample');
    expect(embeddingsOptionsFromEnv(provider)).not.toHaveProperty('quantization');
  });

  it('read the cells and the cells a search probes, and take no cells for 0', () => {
    expect(
      embeddingsOptionsFromEnv({
        ...provider,
        MEMLEDGER_EMBEDDINGS_CELLS: '256',
        MEMLEDGER_EMBEDDINGS_PROBES: '32',
      }),
    ).toMatchObject({ cells: 256, probes: 32 });
    const none = embeddingsOptionsFromEnv({ ...provider, MEMLEDGER_EMBEDDINGS_CELLS: '0' });
    expect(none).not.toHaveProperty('cells');
    expect(none).not.toHaveProperty('probes');
  });

  it.each([
    [
      { MEMLEDGER_EMBEDDINGS_CELLS: '1' },
      'MEMLEDGER_EMBEDDINGS_CELLS',
      'must be an integer from 2 to 4096',
    ],
    [
      { MEMLEDGER_EMBEDDINGS_CELLS: '5000' },
      'MEMLEDGER_EMBEDDINGS_CELLS',
      'must be an integer from 2 to 4096',
    ],
    [
      { MEMLEDGER_EMBEDDINGS_CELLS: 'x' },
      'MEMLEDGER_EMBEDDINGS_CELLS',
      'must be an integer from 2 to 4096',
    ],
    [
      { MEMLEDGER_EMBEDDINGS_PROBES: '4' },
      'MEMLEDGER_EMBEDDINGS_PROBES',
      'needs MEMLEDGER_EMBEDDINGS_CELLS',
    ],
    [
      { MEMLEDGER_EMBEDDINGS_CELLS: '16', MEMLEDGER_EMBEDDINGS_PROBES: '17' },
      'MEMLEDGER_EMBEDDINGS_PROBES',
      'must be at most MEMLEDGER_EMBEDDINGS_CELLS (16)',
    ],
    [
      { MEMLEDGER_EMBEDDINGS_CELLS: '16', MEMLEDGER_EMBEDDINGS_PROBES: '0' },
      'MEMLEDGER_EMBEDDINGS_PROBES',
      'must be an integer from 1 to 4096',
    ],
  ])('refuse cells and probes %j, naming %s and the rule', (set, name, rule) => {
    const { path, message } = refusal({ ...provider, ...set });
    expect(path).toBe(name);
    expect(message).toContain(rule);
  });

  it.each([
    ['MEMLEDGER_EMBEDDINGS_FALLBACK', 'retry', 'must be one of fail, lexical'],
    ['MEMLEDGER_EMBEDDINGS_QUANTIZATION', 'float16', 'must be one of none, int8, binary'],
    ['MEMLEDGER_EMBEDDINGS_OVERSAMPLE', '0', 'must be an integer from 1 to 64'],
    ['MEMLEDGER_EMBEDDINGS_OVERSAMPLE', '65', 'must be an integer from 1 to 64'],
    ['MEMLEDGER_EMBEDDINGS_OVERSAMPLE', '2.5', 'must be an integer from 1 to 64'],
    ['MEMLEDGER_EMBEDDINGS_OVERSAMPLE', 'many', 'must be an integer from 1 to 64'],
  ])('refuse %s=%s, naming it and the rule', (name, value, rule) => {
    const { path, message } = refusal({ ...provider, [name]: value });
    expect(path).toBe(name);
    expect(message).toContain(name);
    expect(message).toContain(rule);
  });
});
