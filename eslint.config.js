// ESLint flat config: typescript-eslint type-checked rules + Prettier, and one
// no-restricted-imports rule per layer so dependencies only point downward (STYLE.md §1).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const layer = (files, patterns) => ({
  files,
  rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
});

const frameworkAndIo = [
  {
    group: [
      '@nestjs/*',
      'better-sqlite3',
      '@eventstore/*',
      'node:*',
      'rxjs',
      'express',
      '@opentelemetry/*',
    ],
    message: 'src/core is pure: no framework, database, telemetry or node:* imports.',
  },
];
// Every folder above src/core and src/db (both sit at the bottom and import none of these).
const ABOVE_DB = [
  'tlog',
  'access',
  'embeddings',
  'vectors',
  'keys',
  'store',
  'projections',
  'read-models',
  'memory',
  'nest',
  'mcp',
  'http',
  'cli',
  'telemetry',
];
const upperLayers = (...names) =>
  names.map((name) => ({
    group: [`**/${name}/*`, `../${name}`],
    message: `This layer must not import from src/${name}.`,
  }));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'web/vendor/**',
      'test-results/**',
      'data/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'scripts/*.mjs', 'bin/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'No default exports.' },
      ],
      // An async function without await is how a store method turns a thrown error into a rejection.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Nest injects by the runtime class of a constructor parameter, so those imports must stay values.
    files: [
      'src/nest/**/*.ts',
      'src/http/**/*.ts',
      'src/projections/**/*.ts',
      'examples/**/*.ts',
      'test/**/*.ts',
    ],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Plain JavaScript (configs, scripts, the web page) is linted without type information.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { console: 'readonly', process: 'readonly' },
    },
  },
  { files: ['*.js', 'scripts/*.mjs', 'bin/*.js'], rules: { 'no-restricted-syntax': 'off' } },
  layer(['src/core/**/*.ts'], [...frameworkAndIo, ...upperLayers(...ABOVE_DB)]),
  // src/db (what every SQLite file memledger writes shares) sits on the core, below keys and store.
  layer(['src/db/**/*.ts'], upperLayers(...ABOVE_DB)),
  // src/keys (per-item data keys, the master key) sits on the core; stores seal with it.
  layer(
    ['src/keys/**/*.ts'],
    upperLayers(
      'access',
      'store',
      'projections',
      'read-models',
      'memory',
      'nest',
      'mcp',
      'http',
      'cli',
      'telemetry',
    ),
  ),
  layer(
    ['src/store/**/*.ts'],
    upperLayers('access', 'projections', 'read-models', 'memory', 'nest', 'mcp', 'http', 'cli'),
  ),
  // src/projections: derived data behind the store's projection port; the facade registers them.
  layer(
    ['src/projections/**/*.ts'],
    upperLayers('access', 'read-models', 'memory', 'nest', 'mcp', 'http', 'cli'),
  ),
  // src/access (keys, grants, JWT, the pure authorize) sits on the core and db: the surfaces
  // above enforce it; nothing below knows who is asking.
  layer(
    ['src/access/**/*.ts'],
    upperLayers(
      'keys',
      'store',
      'projections',
      'read-models',
      'memory',
      'nest',
      'mcp',
      'http',
      'cli',
      'telemetry',
    ),
  ),
  // src/embeddings (the embedder port and its providers) sits on the core alone.
  layer(
    ['src/embeddings/**/*.ts'],
    upperLayers(
      'access',
      'keys',
      'store',
      'projections',
      'read-models',
      'vectors',
      'memory',
      'nest',
      'mcp',
      'http',
      'cli',
      'telemetry',
    ),
  ),
  // src/vectors (the vector index) sits on the core and the embedder port; its windows reach the
  // read models' runtime through src/memory (vector-windows.projection.ts), so neither imports
  // the other.
  layer(
    ['src/vectors/**/*.ts'],
    upperLayers(
      'access',
      'keys',
      'store',
      'projections',
      'read-models',
      'memory',
      'nest',
      'mcp',
      'http',
      'cli',
      'telemetry',
    ),
  ),
  layer(
    ['src/read-models/**/*.ts'],
    upperLayers('access', 'embeddings', 'vectors', 'memory', 'nest', 'mcp', 'http', 'cli'),
  ),
  layer(['src/memory/**/*.ts'], upperLayers('access', 'nest', 'mcp', 'http', 'cli')),
  layer(['src/nest/**/*.ts'], upperLayers('mcp', 'http', 'cli')),
  // src/telemetry instruments the library through @opentelemetry/api alone: the SDK, exporters
  // and their wiring belong to the application (src/http), never to what a library user imports.
  // It sits on the core only: every layer above may trace (the facade's wrappers are in
  // src/memory/traced).
  layer(
    ['src/telemetry/**/*.ts'],
    [
      ...upperLayers(
        'db',
        'access',
        'tlog',
        'embeddings',
        'vectors',
        'keys',
        'store',
        'projections',
        'read-models',
        'memory',
        'nest',
        'mcp',
        'http',
        'cli',
      ),
      {
        group: ['@opentelemetry/*', '!@opentelemetry/api'],
        message: 'The library depends on @opentelemetry/api only; the SDK is wired in src/http.',
      },
    ],
  ),
  // src/mcp sits beside src/http: on memory, core and store; only cli and http import it.
  layer(['src/mcp/**/*.ts'], upperLayers('nest', 'http', 'cli')),
  // src/verify runs unchanged in browsers: WebCrypto only, no package, no node:*, no other folder.
  layer(
    ['src/verify/**/*.ts'],
    [
      {
        regex: '^(?!\\./)',
        message:
          'src/verify runs in browsers: it imports only its own files (WebCrypto is global).',
      },
    ],
  ),
  // src/tlog (tree, signing, witness, monitor) sits on core, db and verify; cli and http use it.
  layer(
    ['src/tlog/**/*.ts'],
    upperLayers(
      'keys',
      'store',
      'read-models',
      'projections',
      'memory',
      'nest',
      'mcp',
      'http',
      'cli',
      'telemetry',
    ),
  ),
  prettier,
);
