import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, type OpenApiDocument } from '@verity/api-schema';
import { routeTable } from '../access/routes.js';
import { GATEWAY_CONTROLLERS } from '../app.module.js';
import { renderReference } from './reference.js';

const ROOT_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../package.json');

/** The files as the code generates them now from the routes' declarations: the document (JSON, indented) and the reference page. */
export function generate(): { document: OpenApiDocument; json: string; html: string } {
  const { version } = JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')) as { version: string };
  const document = buildOpenApiDocument(routeTable(GATEWAY_CONTROLLERS), { version });
  return { document, json: `${JSON.stringify(document, null, 2)}\n`, html: renderReference(document) };
}
