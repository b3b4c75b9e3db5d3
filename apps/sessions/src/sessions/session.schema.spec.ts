/**
 * The validators of the session bodies (parseBody on the zod schemas of libs/domain/api-schema, and the metadata
 * validator) against the JSON Schemas the OpenAPI document publishes from them: what a validator accepts, the document
 * accepts; what the document refuses, the validator refuses. Where only the validator refuses, it is for a rule the
 * document states in words (blank text, text Postgres cannot store, the whole-object metadata rules, calendar and
 * ISO 4217 checks).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { componentSchemas } from '@verity/api-schema';
import { DomainError, type Issue } from '@verity/errors';
import { validateCreateBody, validateDecisionBody, validateNoteBody, validateReasonBody } from './session.validation.js';

const DOC = 'https://verity.invalid/openapi.json';
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormatsModule.default(ajv);
ajv.addSchema({ $id: DOC, components: { schemas: componentSchemas() } });
const schema = (name: string): ValidateFunction => ajv.getSchema(`${DOC}#/components/schemas/${name}`)!;

/** The validator's verdict: accepted, or the issues of its 422. */
function verdict(fn: () => unknown): Issue[] | null {
  try {
    fn();
    return null;
  } catch (e) {
    assert.ok(e instanceof DomainError && e.code === 'validation_error', String(e));
    return (e.details as { issues: Issue[] }).issues;
  }
}

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom('a', 'Z', ' ', 'é', '\u{1F600}'), minLength: 1, maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '\u0000x', 'x\ud800', 'a'.repeat(501), '\u{1F600}'.repeat(500), 'n'.repeat(2001), 5, null, ['x']) },
);

function agree(name: string, body: unknown, issues: Issue[] | null, textRules: (i: Issue) => boolean): void {
  const v = schema(name);
  const valid = v(body);
  if (issues === null) assert.ok(valid, `${name}: the document refuses what the service accepts: ${JSON.stringify(body)} ${JSON.stringify(v.errors)}`);
  if (!valid) assert.ok(issues !== null, `${name}: the service accepts what the document refuses: ${JSON.stringify(body)}`);
  if (valid && issues) assert.ok(issues.every(textRules), `${name}: a rule missing from the document: ${JSON.stringify(issues)}`);
}

/** Blank text and text Postgres cannot store: refinements of the schema, stated in its description, not as a keyword. */
const textRule = (i: Issue) => i.code === 'custom' && (i.path[0] === 'note' || i.path[0] === 'reason');

describe('session bodies: the service validators and the published schemas agree', () => {
  it('POST /v1/sessions (test mode)', () => {
    const body = fc.record(
      {
        applicant_id: fc.constant('app_x'),
        workflow_template_id: fc.constant('wft_x'),
        metadata: fc.oneof(fc.constant({}), fc.constantFrom({ amount: 100, currency: 'EUR' }, { amount: 100 }, { notes: 'x' }, { location: ' Berlin ' }, { start_datetime: '2026-02-30T10:00:00Z' }, { x: [1, { y: null }] }, [], null, 'x')),
        expected_outcome: fc.constantFrom('pass', 'review', 'fail', 'doc_quality', 'PASS', null, 1),
        colour: fc.constant('red'),
      },
      { requiredKeys: ['applicant_id', 'workflow_template_id'] },
    );
    fc.assert(
      fc.property(body, (b) => agree('SessionCreate', b, verdict(() => validateCreateBody(b, 'test')), (i) => i.path[0] === 'metadata' && ['custom', 'invalid_value', 'invalid_format'].includes(i.code))),
      { numRuns: 500, seed: 17 },
    );
  });

  it('notes, cancel and review, decision', () => {
    fc.assert(
      fc.property(fc.record({ note: text, extra: fc.constant(1) }, { requiredKeys: [] }), (b) => agree('SessionNote', b, verdict(() => validateNoteBody(b)), textRule)),
      { numRuns: 400, seed: 17 },
    );
    fc.assert(
      fc.property(fc.record({ reason: text, extra: fc.constant(1) }, { requiredKeys: [] }), (b) => agree('SessionReason', b, verdict(() => validateReasonBody(b)), textRule)),
      { numRuns: 400, seed: 17 },
    );
    fc.assert(
      fc.property(fc.record({ outcome: fc.constantFrom('approved', 'declined', 'maybe', null), reason: text, extra: fc.constant(1) }, { requiredKeys: [] }), (b) =>
        agree('SessionDecision', b, verdict(() => validateDecisionBody(b)), textRule),
      ),
      { numRuns: 400, seed: 17 },
    );
  });
});
