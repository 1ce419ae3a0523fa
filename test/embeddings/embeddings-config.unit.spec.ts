import { isMemoryError } from '../../src/core/index.js';
import {
  embeddingsConfigFromEnv,
  functionEmbedder,
  openEmbedder,
} from '../../src/embeddings/index.js';

function refusal(work: () => unknown): { message: string; path: string | undefined } {
  try {
    work();
  } catch (error) {
    if (!isMemoryError(error, 'VALIDATION_FAILED')) throw error;
    return { message: error.message, path: error.issues[0]?.path };
  }
  throw new Error('expected VALIDATION_FAILED');
}

describe('embeddings configuration from the environment', () => {
  const base = {
    MEMLEDGER_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1',
    MEMLEDGER_EMBEDDINGS_MODEL: 'all-minilm',
    MEMLEDGER_EMBEDDINGS_DIMENSIONS: '384',
  };

  it('is undefined when no embeddings variable is set (recall stays lexical)', () => {
    expect(embeddingsConfigFromEnv({})).toBeUndefined();
    expect(embeddingsConfigFromEnv({ MEMLEDGER_EMBEDDINGS_URL: '  ' })).toBeUndefined();
  });

  it('reads an OpenAI-compatible server by default, with its key', () => {
    expect(embeddingsConfigFromEnv({ ...base, MEMLEDGER_EMBEDDINGS_API_KEY: 'sk-1' })).toEqual({
      provider: 'openai',
      url: 'http://127.0.0.1:11434/v1',
      model: 'all-minilm',
      dimensions: 384,
      apiKey: 'sk-1',
      allowDownload: false,
    });
  });

  it('reads ollama without a URL and a local model directory with downloads allowed', () => {
    expect(
      embeddingsConfigFromEnv({
        MEMLEDGER_EMBEDDINGS_PROVIDER: 'Ollama',
        MEMLEDGER_EMBEDDINGS_MODEL: 'nomic-embed-text',
        MEMLEDGER_EMBEDDINGS_DIMENSIONS: '768',
      }),
    ).toMatchObject({ provider: 'ollama', url: undefined, dimensions: 768 });
    expect(
      embeddingsConfigFromEnv({
        MEMLEDGER_EMBEDDINGS_PROVIDER: 'local',
        MEMLEDGER_EMBEDDINGS_MODEL: './models/all-MiniLM-L6-v2',
        MEMLEDGER_EMBEDDINGS_DIMENSIONS: '384',
        MEMLEDGER_EMBEDDINGS_ALLOW_DOWNLOAD: 'yes',
      }),
    ).toMatchObject({ provider: 'local', allowDownload: true });
  });

  it.each([
    {
      case: 'an unknown provider',
      env: { ...base, MEMLEDGER_EMBEDDINGS_PROVIDER: 'cohere' },
      variable: 'MEMLEDGER_EMBEDDINGS_PROVIDER',
      rule: 'must be one of openai, ollama, local',
    },
    {
      case: 'a model without a URL',
      env: { MEMLEDGER_EMBEDDINGS_MODEL: 'm', MEMLEDGER_EMBEDDINGS_DIMENSIONS: '8' },
      variable: 'MEMLEDGER_EMBEDDINGS_URL',
      rule: 'must be set to the API base URL',
    },
    {
      case: 'an empty model',
      env: { ...base, MEMLEDGER_EMBEDDINGS_MODEL: '' },
      variable: 'MEMLEDGER_EMBEDDINGS_MODEL',
      rule: "must be set to the model's name",
    },
    {
      case: 'no dimensions',
      env: { ...base, MEMLEDGER_EMBEDDINGS_DIMENSIONS: undefined },
      variable: 'MEMLEDGER_EMBEDDINGS_DIMENSIONS',
      rule: "must be set to the model's vector length",
    },
    {
      case: 'fractional dimensions',
      env: { ...base, MEMLEDGER_EMBEDDINGS_DIMENSIONS: '38.4' },
      variable: 'MEMLEDGER_EMBEDDINGS_DIMENSIONS',
      rule: 'an integer from 1 to 65536',
    },
    {
      case: 'zero dimensions',
      env: { ...base, MEMLEDGER_EMBEDDINGS_DIMENSIONS: '0' },
      variable: 'MEMLEDGER_EMBEDDINGS_DIMENSIONS',
      rule: 'must be an integer from 1 to 65536',
    },
    {
      case: 'dimensions over 65536',
      env: { ...base, MEMLEDGER_EMBEDDINGS_DIMENSIONS: '70000' },
      variable: 'MEMLEDGER_EMBEDDINGS_DIMENSIONS',
      rule: 'must be an integer from 1 to 65536',
    },
    {
      case: 'an unclear download flag',
      env: { ...base, MEMLEDGER_EMBEDDINGS_ALLOW_DOWNLOAD: 'maybe' },
      variable: 'MEMLEDGER_EMBEDDINGS_ALLOW_DOWNLOAD',
      rule: 'must be 1, true, yes, 0, false or no',
    },
  ])('refuses $case, naming $variable and the rule', ({ env, variable, rule }) => {
    const { message, path } = refusal(() => embeddingsConfigFromEnv(env));
    expect(path).toBe(variable);
    expect(message).toContain(variable);
    expect(message).toContain(rule);
  });

  it('never quotes the API key in a refusal', () => {
    const { message } = refusal(() =>
      embeddingsConfigFromEnv({
        ...base,
        MEMLEDGER_EMBEDDINGS_API_KEY: 'sk-secret',
        MEMLEDGER_EMBEDDINGS_DIMENSIONS: 'x',
      }),
    );
    expect(message).not.toContain('sk-secret');
  });
});

describe('opening an embedder', () => {
  it('refuses a URL that is not http(s), and a model without a name', () => {
    expect(
      refusal(() => openEmbedder({ url: 'ftp://host/v1', model: 'm', dimensions: 4 })).message,
    ).toContain('must be an http:// or https:// URL (got a ftp: URL)');
    expect(refusal(() => openEmbedder({ model: 'm', dimensions: 4 })).path).toBe('url');
    expect(refusal(() => openEmbedder({ url: 'http://h', model: ' ', dimensions: 4 })).path).toBe(
      'model',
    );
  });

  it('checks a plain function like any provider: count, length, finite numbers', async () => {
    const answers: unknown[][] = [[[1, 2]], [[1, 2, 3]], [[1, Number.NaN, 3]], [['1', 2, 3]]];
    const embedder = functionEmbedder({
      model: 'fn',
      dimensions: 3,
      embed: () => answers.shift() as number[][],
    });
    const codes: string[] = [];
    for (let i = 0; i < 4; i++)
      await embedder.embed(['a']).then(
        () => codes.push('ok'),
        (error: unknown) => codes.push(isMemoryError(error) ? error.code : String(error)),
      );
    expect(codes).toEqual([
      'EMBEDDING_DIMENSIONS_MISMATCH',
      'ok',
      'EMBEDDER_FAILED',
      'EMBEDDER_FAILED',
    ]);
  });
});
