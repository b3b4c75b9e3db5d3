#!/usr/bin/env bash
# Creates a new NATS service in apps/<name>, in the shape every service has (docs/architecture.md, "Adding a
# service"): package.json with its Nx tags, tsconfig.json, src/config.ts (variables, definition, config type),
# src/main.ts, src/migrate.ts, src/app.module.ts, src/index.ts, an empty migrations list and a first spec; and adds
# the project to the root tsconfig.json so that `npm run build` builds it.
#
#   bash tools/mkproj.sh <service-name>        e.g. bash tools/mkproj.sh risk-scores
#
# MKPROJ_ROOT: the repository to write into (default: the one this script is in).
set -euo pipefail

name=${1:-}
if [[ ! $name =~ ^[a-z][a-z0-9]*(-[a-z0-9]+)*$ ]]; then
  echo "usage: bash tools/mkproj.sh <service-name>   (lower case words joined by '-', e.g. risk-scores)" >&2
  exit 64
fi
root=${MKPROJ_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
dir=$root/apps/$name
if [[ -e $dir ]]; then
  echo "apps/$name already exists" >&2
  exit 73
fi

# risk-scores → riskScores (variables), RiskScores (classes), RISK_SCORES (constants)
camel=$(sed -E 's/-([a-z0-9])/\U\1/g' <<<"$name")
pascal=${camel^}
const=$(tr 'a-z-' 'A-Z_' <<<"$name")

mkdir -p "$dir/src/database"

cat >"$dir/package.json" <<EOF
{
  "name": "@verity/$name",
  "version": "0.0.0",
  "private": true,
  "type": "module",
  "exports": { ".": { "types": "./dist/src/index.d.ts", "default": "./dist/src/index.js" } },
  "dependencies": {"@verity/contracts": "*","@verity/errors": "*","@verity/platform": "*"},
  "nx": { "tags": ["type:app", "scope:$name"] }
}
EOF

cat >"$dir/tsconfig.json" <<EOF
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": ".", "outDir": "dist", "tsBuildInfoFile": "dist/tsconfig.tsbuildinfo" },
  "include": ["src", "test"],
  "references": [{ "path": "../../libs/domain/contracts" },{ "path": "../../libs/domain/errors" },{ "path": "../../libs/platform/service" }]
}
EOF

cat >"$dir/src/config.ts" <<EOF
import type { Subject } from '@verity/contracts';
import type { ServiceConfigOf, ServiceDefinition } from '@verity/platform';
import { ${const}_MIGRATIONS } from './database/migrations.js';

/** Configuration of the $name service beyond the platform's (validated at start like the rest). */
export const ${camel}Env = {
  // one zod schema per variable, documented, e.g. MY_LIMIT: z.coerce.number().int().min(1).default(10) (import { z } from 'zod')
};

export const ${const}_SERVICE: ServiceDefinition<typeof ${camel}Env> = {
  name: '$name',
  migrations: ${const}_MIGRATIONS,
  // Health subject: add \`${camel}Health: '$name.health.v1'\` to SUBJECTS and its RpcContracts entry in
  // libs/domain/contracts/src/subjects.ts (docs/architecture.md, "Adding a service"), then write SUBJECTS.${camel}Health here.
  healthSubject: '$name.health.v1' as Subject,
  env: ${camel}Env,
};

/** What \`CONFIG\` holds in this service: the platform's variables and the ones above, as loaded. */
export type ${pascal}Config = ServiceConfigOf<typeof ${camel}Env>;
EOF

cat >"$dir/src/main.ts" <<EOF
import { runService } from '@verity/platform';
import { ${pascal}Module } from './app.module.js';
import { ${const}_SERVICE } from './config.js';

await runService(${const}_SERVICE, ${pascal}Module);
EOF

cat >"$dir/src/migrate.ts" <<EOF
import { runMigrations } from '@verity/platform';
import { ${const}_SERVICE } from './config.js';

await runMigrations(${const}_SERVICE.name, ${const}_SERVICE.migrations);
EOF

cat >"$dir/src/app.module.ts" <<EOF
import { Module } from '@nestjs/common';

/**
 * The $name service's providers: its RPC controller ($name.rpc.controller.ts), use cases and repositories, one
 * feature folder each. The platform adds config (\`CONFIG\`), logger, NATS, the Postgres pool (\`Sql\`) and the health handler.
 */
@Module({ providers: [] })
export class ${pascal}Module {}
EOF

cat >"$dir/src/index.ts" <<EOF
export { ${const}_SERVICE, ${camel}Env, type ${pascal}Config } from './config.js';
EOF

cat >"$dir/src/database/migrations.ts" <<EOF
import type { MigrationClass } from '@verity/platform';

/** The schema \`$(tr '-' '_' <<<"$name")\`, migration by migration (database/migrations/<epoch>-<Name>.ts), oldest first. */
export const ${const}_MIGRATIONS: MigrationClass[] = [];
EOF

cat >"$dir/src/config.spec.ts" <<EOF
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, serviceEnv } from '@verity/platform';
import { ${const}_SERVICE, ${camel}Env } from './config.js';

// the edges' public keys every service verifies principals with (docs/security.md); none has a default
const PRINCIPAL_VERIFY_KEYS = \`gateway/k1:\${'A'.repeat(43)},console/k1:\${'B'.repeat(43)}\`;

describe('$name configuration', () => {
  it('loads with the defaults of the platform and of the service', () => {
    const cfg = loadConfig({ ...serviceEnv, ...${camel}Env }, { REGION: 'us', PRINCIPAL_VERIFY_KEYS });
    assert.equal(cfg.REGION, 'us');
    assert.equal(${const}_SERVICE.name, '$name');
  });

  it('refuses a configuration without its region', () => {
    assert.throws(() => loadConfig({ ...serviceEnv, ...${camel}Env }, { PRINCIPAL_VERIFY_KEYS }), ConfigError);
  });
});
EOF

# the root build (tsc -b tsconfig.json) builds the projects it references
if [[ -f $root/tsconfig.json ]]; then
  MKPROJ_TSCONFIG=$root/tsconfig.json MKPROJ_PATH=apps/$name node -e '
    const fs = require("node:fs");
    const file = process.env.MKPROJ_TSCONFIG;
    const cfg = JSON.parse(fs.readFileSync(file, "utf8"));
    cfg.references ??= [];
    if (!cfg.references.some((r) => r.path === process.env.MKPROJ_PATH)) cfg.references.push({ path: process.env.MKPROJ_PATH });
    fs.writeFileSync(file, JSON.stringify(cfg, null, 2) + "\n");
  '
fi

cat <<EOF
apps/$name created, and referenced from tsconfig.json. Next (docs/architecture.md, "Adding a service"):
  1. npm install                                  links @verity/$name into the workspace
  2. libs/domain/contracts/src/subjects.ts               ${camel}Health: '$name.health.v1' in SUBJECTS and RpcContracts;
                                                  then SUBJECTS.${camel}Health in apps/$name/src/config.ts
  3. libs/domain/contracts/src/nats-permissions.ts       its NATS identity and grants, and its health subject in HEALTH
  4. eslint.config.mjs                            a depConstraint for scope:$name
  5. apps/gateway/src/health/health.controller.ts its health subject in REGION_SERVICES (readiness)
  6. tools/stack/src/stack.ts                     '$name' in SERVICES (npm start, the e2e stacks)
  7. docker/, deploy/                             its image target, Deployment and migrate Job
EOF
