import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'tools/testdb/', 'coverage/', 'client/dist/', 'client/src/schema.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration from shared/config.ts.' }],
    },
  },
  {
    // The config module, the process entry points of tools, the tests' harness and the client's
    // examples (a separate package) set up the environment.
    files: ['shared/config.ts', 'test/**', 'scripts/**', 'tools/**', 'client/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // CommonJS where a tool loads files with require() (mocha's reporters).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
