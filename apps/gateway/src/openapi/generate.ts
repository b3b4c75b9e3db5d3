/**
 * Writes apps/gateway/openapi/openapi.json and reference.html from the routes' declarations (`@Route`) and libs/domain/api-schema.
 * Run by `npm run build` after the compile, or alone: `npm run openapi` (docs/openapi.md).
 */
import { writeFileSync } from 'node:fs';
import { generate } from './build.js';
import { DOCUMENT_PATH, REFERENCE_PATH } from './document.js';

const { json, html, document } = generate();
writeFileSync(DOCUMENT_PATH, json);
writeFileSync(REFERENCE_PATH, html);
process.stdout.write(`openapi: ${Object.keys(document.paths).length} paths written to ${DOCUMENT_PATH} and ${REFERENCE_PATH}\n`);
