import { Body, Controller, Inject, Param, Res } from '@nestjs/common';
import { idParam } from '@verity/api-schema';
import { SUBJECTS, type DataSubjectRequest, type DsarArtifact } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { CONFIG, RpcClient } from '@verity/platform';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
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
    description:
      'Once completed: `export` (access) or `certificate` (erasure). Every `export.evidence` entry has the `url` of its image; the first `export.evidence_inlined` of them (at most `DSAR_INLINE_IMAGES` of the region, 20 by default) also carry the JPEG inlined as `data_base64`, the others `data_base64: null`.',
    params: { id: idParam('data subject request') },
    success: { status: 200, description: 'The request.', body: { data: 'DataSubjectRequest' } },
    errors: ['resource_not_found'],
  })
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    const request = await this.rpc.call(SUBJECTS.applicantsDsarGet, { id }, c);
    return { data: await this.withImages(request, c) };
  }

  @Route('GET /v1/data_subject_requests/:id/images/:index', {
    access: { scope: 'dsar:write', rateClass: 'reads' },
    tag: 'Privacy',
    summary: 'Stream an image of an access export',
    description:
      "The JPEG of `export.evidence[index]` of a completed access request: the entry's `url`, inlined or not. `Cache-Control: no-store, private`. A request that has no such entry (unknown, another organization's or the other mode's, pending, an erasure, an export an erasure wiped, an index out of range) is 404 `resource_not_found`; an image no longer stored (erased, expired) is 404 `artifact_not_available`.",
    params: {
      id: idParam('data subject request'),
      index: { description: 'The position of the entry in `export.evidence`, from `0`.', schema: z.coerce.number().int().min(0) },
    },
    success: { status: 200, description: 'The image (always JPEG).', body: { binary: 'image/jpeg' }, headers: { 'Cache-Control': 'no-store, private' } },
    errors: ['resource_not_found', 'artifact_not_available'],
  })
  async image(@Param('id') id: string, @Param('index') index: string, @CallerOf() c: Caller, @Res() reply: FastifyReply) {
    if (!/^(0|[1-9][0-9]{0,8})$/.test(index)) throw DomainError.notFound();
    // the one entry, not the whole export (which may hold thousands)
    const entry = await this.rpc.call(SUBJECTS.applicantsDsarEvidenceEntry, { id, index: Number(index) }, c);
    await this.proxy.download(this.storedImageUrl(entry), c, reply, { 'content-type': 'image/jpeg', 'cache-control': 'no-store, private' }, this.cfg.RPC_TIMEOUT_MS);
  }

  /**
   * An access export's images: each entry gets the `url` of its own route, and the first `DSAR_INLINE_IMAGES` the
   * bytes as base64 JPEG from the evidence service (images never travel over NATS), so an answer stays bounded.
   */
  private async withImages(request: DataSubjectRequest, c: Caller): Promise<DataSubjectRequest> {
    if (!request.export) return request;
    const evidence = request.export.evidence;
    const inline = Math.min(evidence.length, this.cfg.DSAR_INLINE_IMAGES);
    const entries: DsarArtifact[] = [];
    for (const [i, e] of evidence.entries()) {
      const bytes = i < inline ? await this.proxy.fetchBytes(this.storedImageUrl(e), c, this.cfg.RPC_TIMEOUT_MS) : null;
      entries.push({ ...e, url: `/v1/data_subject_requests/${request.id}/images/${i}`, data_base64: bytes ? bytes.toString('base64') : null });
    }
    return { ...request, export: { ...request.export, evidence: entries, evidence_inlined: inline, evidence_total: evidence.length } };
  }

  /** Where the evidence service's internal HTTP side serves one stored image of an export. */
  private storedImageUrl(e: DsarArtifact): string | undefined {
    const base = this.cfg.EVIDENCE_URL;
    return base && `${base}/sessions/${encodeURIComponent(e.session_id)}/stored-images/${e.source}/${e.artifact}`;
  }
}
