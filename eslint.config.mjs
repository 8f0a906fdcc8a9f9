// Lint, including the layer boundaries (ARCHITECTURE.md "Folders") as errors: core imports nothing of ours and
// neither vscode nor the MCP SDK; mcp and cli import core; only extension imports vscode.

import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ['error', { patterns }];

const NODE_GLOBALS = Object.fromEntries(
  ['process', 'console', 'Buffer', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'URL', 'performance', 'AbortController', 'fetch'].map((g) => [
    g,
    'readonly',
  ]),
);

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', '**/node_modules/**', '.test-results/**', '**/*.tmp.ts', '**/*.tmp.mjs', 'bench/results/**', '**/.scratch/**', 'bench/.build/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
      eqeqeq: ['error', 'always'],
      // `import { z } from 'zod'` takes zod's whole namespace object, so esbuild bundles all of it
      // (its 64 locales too): 0.6 MB more in every bundle. A namespace import is shaken.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z'][importKind!='type']",
          message: "Write `import * as z from 'zod'`: the named `z` bundles all of zod.",
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode'], message: 'src/core is plain Node: no vscode.' },
        { group: ['@modelcontextprotocol/*'], message: 'src/core knows nothing of MCP.' },
        { group: ['**/mcp/**', '**/cli/**', '**/extension/**', '**/webview/**', '**/shared/**'], message: 'src/core imports nothing of ours outside core.' },
      ]),
    },
  },
  {
    files: ['src/mcp/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode'], message: 'Only src/extension imports vscode.' },
        { group: ['**/extension/**', '**/webview/**'], message: 'The server and CLI import core only.' },
      ]),
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode'], message: 'Only src/extension imports vscode.' },
        { group: ['@modelcontextprotocol/*', '**/mcp/**'], message: 'The CLI calls core services, not MCP.' },
        { group: ['**/extension/**', '**/webview/**'], message: 'The CLI imports core only.' },
      ]),
    },
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['**/mcp/**', '@modelcontextprotocol/*'], message: 'The extension starts dist/server.js as a process; it never imports src/mcp.' },
        { group: ['**/webview/**'], message: 'Webview code runs in the browser; share types through src/shared.' },
      ]),
      // Activation must not parse core (zod, sql.js, openai): values come through loadCore()
      // from dist/core.js; only types, and four tiny modules, are imported directly.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core/**', '!**/core/errors', '!**/core/log', '!**/core/projectId', '!**/core/leanNode', '**/shared/**', 'zod', 'sql.js', 'openai'],
              allowTypeImports: true,
              message: 'The extension loads core lazily: import types only, and values through loadCore() (src/extension/coreBundle.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/extension/coreBundle.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode', 'node:*', 'sql.js', '@modelcontextprotocol/*'], message: 'Browser code: no vscode, no node, no sql.js.' },
        { group: ['**/core/**', '**/mcp/**', '**/cli/**', '**/extension/**'], message: 'Webviews import src/shared only.' },
      ]),
    },
  },
  {
    // src/shared describes the messages between the extension and its pages. Where a page shows a
    // core record as it is, shared names core's type instead of a copy of it: types only (erased
    // from the bundle), and only from core's modules of plain types, which import nothing.
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict([
        { group: ['vscode', 'node:*', 'sql.js', '@modelcontextprotocol/*'], message: 'Browser code: no vscode, no node, no sql.js.' },
        { group: ['**/mcp/**', '**/cli/**', '**/extension/**', '**/webview/**'], message: 'src/shared imports nothing of the extension, the server or the pages.' },
      ]),
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core/**', '!**/core/queue/types', '!**/core/traces/types'],
              message: 'src/shared names types from core/queue/types and core/traces/types only, which import nothing.',
            },
            {
              group: ['**/core/queue/types', '**/core/traces/types'],
              allowTypeImports: true,
              message: "src/shared is loaded by the pages: import core's types only (import type), never its values.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: NODE_GLOBALS },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...NODE_GLOBALS, require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
