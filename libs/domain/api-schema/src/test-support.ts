/**
 * Tests only (not exported from the package): the document's component schemas compiled with a JSON Schema 2020-12
 * validator, as a client validating against the document would.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { componentSchemas } from './openapi.js';

const DOC_ID = 'https://verity.invalid/openapi.json';

let ajv: Ajv2020 | undefined;

/** A validator of the named component schema (`SessionMetadataInput`, `Session`, …). */
export function componentValidator(name: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormatsModule.default(ajv);
    ajv.addSchema({ $id: DOC_ID, components: { schemas: componentSchemas() } });
  }
  const v = ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`);
  if (!v) throw new Error(`no component schema ${name}`);
  return v;
}
