import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, renderReference, type OpenApiDocument } from '@verity/api-schema';
import { ROUTES } from '../access/routes.js';

const ROOT_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../package.json');

/** The files as the code generates them now: the document (JSON, indented) and the reference page. */
export function generate(): { document: OpenApiDocument; json: string; html: string } {
  const { version } = JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')) as { version: string };
  const document = buildOpenApiDocument(ROUTES, { version });
  return { document, json: `${JSON.stringify(document, null, 2)}\n`, html: renderReference(document) };
}
