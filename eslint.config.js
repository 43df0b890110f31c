// Lint and the layer rule (docs/architecture.md): which source folder may import which.
//   src-shared           pure logic: itself and zod; no Node, DOM or Electron; inside it, floors (below)
//   src-renderer         the views: itself, src-shared, and its UI libraries
//   src-main             the host's I/O: itself, src-shared, Node, and the demo devices' entry point
//   src-demo             the demo devices (peers): itself, the wire formats, Node
// tests, e2e and bench may import anything. `tests/unit/layers.test.ts` breaks each rule on purpose.
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';

const zod = { module: { origin: 'external', source: 'zod' } };
const core = { module: { origin: 'core' } };
const external = (...sources) => ({ module: { origin: 'external', source: sources } });
// src-shared's floors, from the ground up (docs/architecture.md#floors): a folder imports itself and the
// floors below it, never one above nor a neighbour on its own floor. One element per folder.
// a11y, the accessibility audit (docs/rules.md#r-a11y-01), reads nodes and suggests selectors; nothing below it uses it.
const FLOORS = [['protocol'], ['model'], ['observe', 'selectors'], ['act', 'a11y'], ['compare'], ['trace'], ['inspect'], ['api']];
// Files of src-shared outside every floor's folder: a new folder must take its floor in FLOORS.
const SHARED = [...FLOORS.flat(), 'shared'];
// Pure-JS parsers the hand-offs need (docs/selectors.md#s-maestro-rules): no Node, DOM or Electron in them.
const pureParsers = { module: { origin: 'external', source: ['re2js', 'yaml', 'xpath', '@xmldom/xmldom'] } };
const floorPolicies = FLOORS.flatMap((floor, level) =>
  floor.map((type) => ({
    from: { element: { type } },
    allow: { to: [{ element: { types: { anyOf: [type, ...FLOORS.slice(0, level).flat()] } } }, zod, ...(type === 'protocol' ? [] : [pureParsers])] },
  })),
);
const everything = [{ element: { types: { anyOf: [...SHARED, 'renderer', 'main', 'demo'] } } }];

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'test-results/**', 'playwright-report/**', 'resources/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      'no-duplicate-imports': ['error', { includeExports: false, allowSeparateTypeImports: true }],
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', '../../*'], message: 'Import across folders through an alias (@shared/, @main/, @demo/, @renderer/), not ../' }] },
      ],
    },
  },
  {
    // Tests reach their own helpers one folder up (tests/support); sources only through the aliases.
    files: ['tests/**/*.{ts,tsx}'],
    rules: {
      // Tests read loosely typed JSON from peers and fixtures.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../*'], message: 'Import sources through an alias (@shared/, @main/, @demo/, @renderer/)' }] },
      ],
    },
  },
  {
    // A benchmark that prints the figures of contract cases runs the tests' own cases (tests/support), not a copy.
    files: ['bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!tests/support/[^/]+$)',
              message: 'Import across folders through an alias (@shared/, @main/, @demo/, @renderer/), not ../',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src-*/**/*.{ts,tsx}', 'tests/**/*.{ts,tsx}', 'e2e/**/*.ts', 'bench/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.test.json' } },
      'boundaries/include': ['src-*/**/*', 'tests/**/*', 'e2e/**/*', 'bench/**/*'],
      // Dynamic import() and re-exports are dependencies too (the host loads the demo device lazily).
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      'boundaries/elements': [
        ...FLOORS.flat().map((type) => ({ type, pattern: `src-shared/${type}`, partialMatch: false })),
        { type: 'shared', pattern: 'src-shared', partialMatch: false },
        { type: 'renderer', pattern: 'src-renderer', partialMatch: false },
        { type: 'main', pattern: 'src-main', partialMatch: false },
        { type: 'demo', pattern: 'src-demo', partialMatch: false },
        { type: 'check', pattern: '{tests,e2e,bench}', partialMatch: false },
      ],
      // The demo devices' public entry points: the only files of src-demo the host may import.
      'boundaries/files': [{ category: 'entry', pattern: 'src-demo/{index,replay-device,process}.ts' }],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          checkAllOrigins: true,
          checkUnknownLocals: true,
          policies: [
            ...floorPolicies,
            { from: { element: { type: 'shared' } }, allow: { to: [{ element: { types: { anyOf: SHARED } } }, zod] } },
            {
              from: { element: { type: 'renderer' } },
              allow: {
                to: [
                  { element: { types: { anyOf: [...SHARED, 'renderer'] } } },
                  external(
                    'react',
                    'react-dom',
                    'react/*',
                    'react-dom/*',
                    'zustand',
                    'zustand/*',
                    'react-resizable-panels',
                    'react-zoom-pan-pinch',
                    '@tanstack/*',
                    'zod',
                    'uplot',
                    'uplot/*',
                  ),
                  { module: { origin: 'local', source: '*.css' } },
                ],
              },
            },
            {
              from: { element: { type: 'main' } },
              allow: {
                to: [
                  { element: { types: { anyOf: [...SHARED, 'main'] } } },
                  { element: { type: 'demo' }, file: { categories: 'entry' } },
                  core,
                  external('electron', 'ws', 'zod', 'yauzl', 'yazl', 'bonjour-service', '@modelcontextprotocol/*', 'playwright-core', 'pngjs'),
                ],
              },
            },
            {
              from: { element: { type: 'demo' } },
              allow: {
                to: [{ element: { types: { anyOf: ['protocol', 'demo'] } } }, core, external('ws', 'zod', 'playwright-core', 'bonjour-service', 'pngjs')],
              },
            },
            { from: { element: { type: 'check' } }, allow: { to: [...everything, { element: { type: 'check' } }, core, { module: { origin: 'external' } }] } },
          ],
        },
      ],
    },
  },
);
