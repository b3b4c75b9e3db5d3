import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/** The house's dependency rules between projects (ARCHITECTURE.md); `allow` names imports exempt from them. */
const boundaries = (allow) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow,
    depConstraints: [
      // kind: apps may use every kind of lib; libs never use apps
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:core', 'type:platform'] },
      { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:contracts', 'type:core', 'type:platform', 'type:tool'] },
      { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contracts', 'type:core', 'type:platform', 'type:tool'] },
      { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:contracts', 'type:core', 'type:platform'] },
      { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:core'] },
      { sourceTag: 'type:core', onlyDependOnLibsWithTags: ['type:core'] },
      // scope: a service's code uses shared libs and its own scope only
      { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
      { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:gateway'] },
      { sourceTag: 'scope:accounts', onlyDependOnLibsWithTags: ['scope:shared', 'scope:accounts'] },
      { sourceTag: 'scope:applicants', onlyDependOnLibsWithTags: ['scope:shared', 'scope:applicants'] },
      { sourceTag: 'scope:screening', onlyDependOnLibsWithTags: ['scope:shared', 'scope:screening'] },
      { sourceTag: 'scope:sessions', onlyDependOnLibsWithTags: ['scope:shared', 'scope:sessions'] },
      { sourceTag: 'scope:evidence', onlyDependOnLibsWithTags: ['scope:shared', 'scope:evidence'] },
      { sourceTag: 'scope:id-scan', onlyDependOnLibsWithTags: ['scope:shared', 'scope:id-scan'] },
      { sourceTag: 'scope:webhook-delivery', onlyDependOnLibsWithTags: ['scope:shared', 'scope:webhook-delivery'] },
      { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:shared', 'scope:console'] },
      { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:shared', 'scope:tools'] },
    ],
  },
];

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.mjs', '**/*.js', '**/*.d.ts'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': boundaries([]),
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
    // tests of every project may use the test helpers (fixtures, a real database, Chromium)
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@nx/enforce-module-boundaries': boundaries(['@verity/testing']) },
  },
];
