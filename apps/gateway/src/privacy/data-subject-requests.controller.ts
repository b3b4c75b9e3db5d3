import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { SUBJECTS, type DataSubjectRequest } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { CallerOf, type Caller } from '../http/caller.js';
import { StreamProxy } from '../streams/stream-proxy.js';

/** POST and GET /v1/data_subject_requests (docs/privacy.md): the applicants service owns and runs them. */
@Controller('v1/data_subject_requests')
export class DataSubjectRequestsController {
  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    private readonly proxy: StreamProxy,
    @Inject(GATEWAY_CONFIG) private readonly cfg: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(202)
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.applicantsDsarCreate, { body }, c) };
  }

  @Get(':id')
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
