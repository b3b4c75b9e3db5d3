import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/** Test code: specs of every kind, and the helpers in a project's `test/` folder. */
const TEST_FILES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/test/**/*.ts'];

/**
 * Files that break the rules on purpose: tools/deploy-check/src/boundaries.spec.ts lints them with this config and
 * asserts the errors. `npm run lint` skips them.
 */
const LINT_FIXTURES = 'tools/deploy-check/lint-fixtures';

/**
 * The house's dependency rules between projects (ARCHITECTURE.md). `type:testing` projects (libs/testing/*, e2e,
 * tools/bench) exist only to test or measure the system: production sources never import them, test files may.
 */
const boundaries = ({ tests }) => {
  const testing = tests ? ['type:testing'] : [];
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      depConstraints: [
        // kind (libs/<kind>/, docs/architecture.md "Libraries by kind"): apps may use every kind of lib; libs never
        // use apps; the domain uses nothing but the domain; the platform and the web build on the domain
        { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:web', ...testing] },
        { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:web', 'type:tool', ...testing] },
        { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', ...testing] },
        { sourceTag: 'type:web', onlyDependOnLibsWithTags: ['type:domain', 'type:web', ...testing] },
        { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', ...testing] },
        { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:web', 'type:tool', 'type:testing'] },
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
};

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.mjs', '**/*.js', '**/*.d.ts', `${LINT_FIXTURES}/**`] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    // the type-aware rules (a promise nobody awaits, an async function where a callback's result is ignored) are
    // oxlint's, on TypeScript 7: .oxlintrc.json, the second half of `npm run lint`
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': boundaries({ tests: false }),
    },
  },
  {
    // one way to validate a request body or an RPC's request: parseBody (libs/domain/errors), which maps zod's issues to
    // the error envelope (docs/architecture.md, "One of each")
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['libs/domain/errors/src/parse-body.ts', 'libs/platform/service/src/config.ts', ...TEST_FILES],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='safeParse']",
          message: 'Validate with parseBody or checkBody (@verity/errors): one mapping of issues to the error envelope.',
        },
      ],
    },
  },
  {
    files: TEST_FILES,
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@nx/enforce-module-boundaries': boundaries({ tests: true }) },
  },
];
