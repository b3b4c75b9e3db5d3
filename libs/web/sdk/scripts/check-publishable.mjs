#!/usr/bin/env node
// Run before `npm publish`: the published declarations must not import the repository's private @verity/*
// packages (a consumer could not resolve them: without skipLibCheck its build fails, with it every wire type
// silently becomes `any`). The types are generated from the OpenAPI document (src/generated/openapi.ts).
import { readdirSync, readFileSync } from 'node:fs';

const dir = new URL('../dist/src/', import.meta.url);
const bad = readdirSync(dir).filter((f) => f.endsWith('.d.ts') && /from ['"]@verity\//.test(readFileSync(new URL(f, dir), 'utf8')));
if (bad.length > 0) {
  console.error(`not publishable: ${bad.join(', ')} import private @verity/* types (see README.md, "Types")`);
  process.exit(1);
}
