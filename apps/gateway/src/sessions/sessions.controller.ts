import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { idParam, LIST_TEXT, sessionListQuery } from '@verity/api-schema';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { Route } from '../access/routes.js';
import { CallerOf, type Caller } from '../http/caller.js';

const ACTION_TEXT =
  'Cancel from `pending`, `in_progress` or `manual_review`; review from `pending` or `in_progress`; decision from `manual_review` only. Any other status is 409 `invalid_state_transition` (`details.status`). Answers the updated session.';

@Controller()
export class SessionsController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Route('POST /v1/sessions', {
    access: { scope: 'sessions:write', rateClass: 'sessions:create' },
    tag: 'Sessions',
    summary: 'Create a session',
    description:
      'A verification of one applicant against the current version of a template. Checks in order: body shape (unknown fields refused), `metadata` (every issue reported), `expected_outcome`, then the ids (404 with `param`), then the signing document\'s required metadata (403 `esign_requirements_not_met`), then, in live mode, the wallet (402 `payment_required`, `details.price`). Nothing is created on refusal. A test session runs its synthetic checks at once and rests within seconds; a live session waits `pending` for its applicant at `url`.',
    body: { component: 'SessionCreate', example: { applicant_id: 'app_4Xb7Qm2Zp9LkR3tV8wYc1NdE', workflow_template_id: 'wft_7Hc2Lp9Qx4MzT6vB1nRk8WdS' } },
    success: { status: 201, description: 'The session created (without `idv` and `screening`).', body: { data: 'Session' } },
    errors: ['resource_not_found', 'esign_requirements_not_met', 'payment_required'],
  })
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCreate, { body }, c) };
  }

  @Route('GET /v1/sessions/:id', {
    access: { scope: 'sessions:read', rateClass: 'reads' },
    tag: 'Sessions',
    summary: 'Read a session',
    description:
      'With `idv` when the session ran an identity check (what the image endpoint can serve), and `screening`: how the screening rules decided the last run (rules fired with action and priority, score, threshold; never an applicant value).',
    params: { id: idParam('session') },
    success: { status: 200, description: 'The session.', body: { data: 'Session' } },
    errors: ['resource_not_found'],
  })
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsGet, { id }, c) };
  }

  @Route('GET /v1/sessions', {
    access: { scope: 'sessions:read', rateClass: 'reads' },
    tag: 'Sessions',
    summary: 'List sessions',
    description: `${LIST_TEXT} Filters \`status\` and \`applicant_id\`. Items carry neither \`idv\` nor \`screening\`.`,
    query: sessionListQuery,
    success: { status: 200, description: 'A page of sessions.', body: { schema: 'SessionPage' } },
  })
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.sessionsList, query, c);
  }

  @Route('POST /v1/sessions/:id/notes', {
    access: { scope: 'sessions:write', rateClass: 'global' },
    tag: 'Sessions',
    summary: 'Add a note to a session',
    description: 'Appends `{ note, created_at }` to `metadata.operatorNotes`, in every status; emits no event. A session whose applicant was erased takes no notes (409 `invalid_state_transition`, `details.erased`).',
    params: { id: idParam('session') },
    body: { component: 'SessionNote', example: { note: 'Address confirmed by phone.' } },
    success: { status: 200, description: 'The session.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  })
  async note(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsNote, { id, body }, c) };
  }

  @Route('POST /v1/sessions/:id/cancel', {
    access: { scope: 'sessions:write', rateClass: 'global' },
    tag: 'Sessions',
    summary: 'Cancel a session',
    description: `To \`cancelled\`; the reason is kept as \`metadata.cancellationReason\`; event \`kyc.session.cancelled\`. ${ACTION_TEXT}`,
    params: { id: idParam('session') },
    body: { component: 'SessionReason', optional: true, example: { reason: 'The applicant withdrew.' } },
    success: { status: 200, description: 'The session, cancelled.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  })
  async cancel(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCancel, { id, body }, c) };
  }

  @Route('POST /v1/sessions/:id/review', {
    access: { scope: 'sessions:write', rateClass: 'global' },
    tag: 'Sessions',
    summary: 'Send a session to manual review',
    description: `To \`manual_review\`; the reason is kept as \`metadata.manualReviewReason\`; event \`kyc.session.manual_review_requested\`. ${ACTION_TEXT}`,
    params: { id: idParam('session') },
    body: { component: 'SessionReason', optional: true, example: { reason: 'The document photo is blurred.' } },
    success: { status: 200, description: 'The session, in manual review.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  })
  async review(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsReview, { id, body }, c) };
  }

  @Route('POST /v1/sessions/:id/decision', {
    access: { scope: 'sessions:write', rateClass: 'global' },
    tag: 'Sessions',
    summary: 'Decide a session in manual review',
    description: `Only from \`manual_review\`: to \`completed\` with the outcome; event \`kyc.session.completed\`. ${ACTION_TEXT}`,
    params: { id: idParam('session') },
    body: { component: 'SessionDecision', example: { outcome: 'approved', reason: 'The documents match.' } },
    success: { status: 200, description: 'The session, completed.', body: { data: 'Session' } },
    errors: ['resource_not_found', 'invalid_state_transition'],
  })
  async decision(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsDecision, { id, body }, c) };
  }
}
