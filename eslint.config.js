import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers (docs/architecture.md, "Layers"): every import points down. Bottom up:
 *   shared/{errors,client-errors,admin-errors,reasons,config,redis-url,logger,process}.ts and shared/domain/ (pure rules)
 *   shared/data/ (schemas, repositories) and shared/net/ (the outbound webhook client)
 *   shared/queue/ (persisted names and payloads, partitions, the gateway)
 *   shared/cache/ and shared/ops/ (in-process caches and change announcements; health, metrics)
 *   shared/services.ts (the dependency bundle)
 *   shared/usecases/ and shared/bootstrap.ts
 *   api/ and worker/ (the two processes: neither imports the other)
 *   scripts/ and tools/ (and test/, which may import anything)
 * An import of a layer above, or of the other process, fails `npm run lint`.
 */
const UP = {
  top: ['api', 'worker', 'scripts', 'tools', 'test'],
  domain: ['data', 'net', 'queue', 'cache', 'ops', 'usecases', 'services.js', 'bootstrap.js', 'config.js', 'logger.js'],
  data: ['net', 'queue', 'cache', 'ops', 'usecases', 'services.js', 'bootstrap.js'],
  net: ['data', 'queue', 'cache', 'ops', 'usecases', 'services.js', 'bootstrap.js'],
  queue: ['net', 'cache', 'ops', 'usecases', 'services.js', 'bootstrap.js'],
  cacheAndOps: ['usecases', 'services.js', 'bootstrap.js'],
  services: ['usecases', 'bootstrap.js', 'ops'],
  usecases: ['bootstrap.js'],
  base: ['domain', 'data', 'net', 'queue', 'cache', 'ops', 'usecases', 'services.js', 'bootstrap.js'],
};
/** A `no-restricted-imports` pattern for imports that reach one of `targets` (folders, or files of shared/). */
const reaching = (targets, where) => ({
  regex: `(^|/)(${targets.map((t) => t.replace('.', '\\.') + (t.endsWith('.js') ? '$' : '/')).join('|')})`,
  message: `${where} may not import this: an import of a layer above (docs/architecture.md, "Layers")`,
});
function layerRules() {
  const rule = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });
  return [
    rule(['shared/domain/**'], [reaching(UP.top, 'shared/'), reaching(UP.domain, 'shared/domain/')]),
    rule(['shared/data/**'], [reaching(UP.top, 'shared/'), reaching(UP.data, 'shared/data/')]),
    rule(['shared/net/**'], [reaching(UP.top, 'shared/'), reaching(UP.net, 'shared/net/')]),
    rule(['shared/queue/**'], [reaching(UP.top, 'shared/'), reaching(UP.queue, 'shared/queue/')]),
    rule(['shared/cache/**', 'shared/ops/**'], [reaching(UP.top, 'shared/'), reaching(UP.cacheAndOps, 'shared/cache/ and shared/ops/')]),
    rule(['shared/services.ts'], [reaching(UP.top, 'shared/'), reaching(UP.services, 'shared/services.ts')]),
    rule(['shared/usecases/**', 'shared/bootstrap.ts'], [reaching(UP.top, 'shared/'), reaching(UP.usecases, 'shared/usecases/')]),
    rule(
      [
        'shared/errors.ts',
        'shared/client-errors.ts',
        'shared/reasons.ts',
        'shared/config.ts',
        'shared/redis-url.ts',
        'shared/logger.ts',
        'shared/process.ts',
      ],
      [reaching(UP.top, 'shared/'), reaching(UP.base, 'the base of shared/')],
    ),
    rule(['api/**'], [reaching(['worker', 'scripts', 'tools', 'test'], 'api/')]),
    rule(['worker/**'], [reaching(['api', 'scripts', 'tools', 'test'], 'worker/')]),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.test-build/',
      'tools/testdb/',
      'coverage/',
      'client/dist/',
      'client/src/schema.ts',
      'console/dist/',
      'test-results/',
    ],
  },
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
    files: ['shared/config.ts', 'test/**', 'scripts/**', 'tools/**', 'client/**', 'console/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  ...layerRules(),
  {
    // CommonJS where a tool loads files with require() (mocha's reporters).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
