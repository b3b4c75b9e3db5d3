#!/usr/bin/env node
// Records the platform-specific optional packages of msgpackr-extract (a BullMQ dependency) in
// package-lock.json, as npm does when every platform's package can be resolved, so that `npm ci` accepts the
// lockfile on every machine. Run after `npm install` if `npm ci` reports them missing.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const base = lock.packages['node_modules/msgpackr-extract'];
if (!base) process.exit(0);
const platforms = { 'darwin-arm64': ['darwin', 'arm64'], 'darwin-x64': ['darwin', 'x64'], 'linux-arm': ['linux', 'arm'], 'linux-arm64': ['linux', 'arm64'], 'linux-x64': ['linux', 'x64'], 'win32-x64': ['win32', 'x64'] };
let added = 0;
for (const [name, [os, cpu]] of Object.entries(platforms)) {
  const pkg = `@msgpackr-extract/msgpackr-extract-${name}`;
  const key = `node_modules/${pkg}`;
  const version = base.optionalDependencies?.[pkg];
  if (!version || lock.packages[key]) continue;
  lock.packages[key] = {
    version,
    resolved: `https://registry.npmjs.org/${pkg}/-/msgpackr-extract-${name}-${version}.tgz`,
    cpu: [cpu],
    license: 'MIT',
    optional: true,
    os: [os],
  };
  added++;
}
const [root, ...rest] = Object.entries(lock.packages);
lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`recorded ${added} platform package(s)\n`);
