import { Body, Controller, Inject, Param } from '@nestjs/common';
import { idParam } from '@verity/api-schema';
import { SUBJECTS, type DataSubjectRequest } from '@verity/contracts';
import { CONFIG, RpcClient } from '@verity/platform';
import { Route } from '../access/routes.js';
import type { GatewayConfig } from '../config.js';
import { CallerOf, type Caller } from '../http/caller.js';
import { StreamProxy } from '../streams/stream-proxy.js';

/** POST and GET /v1/data_subject_requests (docs/privacy.md): the applicants service owns and runs them. */
@Controller()
export class DataSubjectRequestsController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    private readonly proxy: StreamProxy,
    @Inject(CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Route('POST /v1/data_subject_requests', {
    access: { scope: 'dsar:write', rateClass: 'dsar:create' },
    tag: 'Privacy',
    summary: 'Start a data subject request',
    description:
      "`access` exports every record the region holds about the applicant; `erasure` removes its personal data in every service and issues a signed certificate. Completes without an operator; read it back with GET. Rate class `dsar:create` counts per 24 hours.",
    body: { component: 'DataSubjectRequestCreate', example: { type: 'access', applicant_id: 'app_4Xb7Qm2Zp9LkR3tV8wYc1NdE' } },
    success: { status: 202, description: 'The request, `pending`.', body: { data: 'DataSubjectRequest' } },
    errors: ['resource_not_found'],
  })
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.applicantsDsarCreate, { body }, c) };
  }

  @Route('GET /v1/data_subject_requests/:id', {
    access: { scope: 'dsar:write', rateClass: 'reads' },
    tag: 'Privacy',
    summary: 'Read a data subject request',
    description: 'Once completed: `export` (access; images inlined as base64 JPEG) or `certificate` (erasure).',
    params: { id: idParam('data subject request') },
    success: { status: 200, description: 'The request.', body: { data: 'DataSubjectRequest' } },
    errors: ['resource_not_found'],
  })
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    const request = await this.rpc.call(SUBJECTS.applicantsDsarGet, { id }, c);
    return { data: await this.withImages(request, c) };
  }

  /** An access export's images, inlined as base64 JPEG from the evidence service (images never travel over NATS). */
  private async withImages(request: DataSubjectRequest, c: Caller): Promise<DataSubjectRequest> {
    const evidence = request.export?.evidence;
    if (!evidence?.length) return request;
    const base = this.cfg.EVIDENCE_URL;
    const inlined = [];
    for (const e of evidence) {
      const url = base && `${base}/sessions/${encodeURIComponent(e.session_id)}/stored-images/${e.source}/${e.artifact}`;
      const bytes = await this.proxy.fetchBytes(url, c, this.cfg.RPC_TIMEOUT_MS);
      inlined.push({ ...e, data_base64: bytes ? bytes.toString('base64') : null });
    }
    return { ...request, export: { ...request.export!, evidence: inlined } };
  }
}
