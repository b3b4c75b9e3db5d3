import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { HttpClient, type FetchLike, type RequestOptions } from './http.js';
import { parseKey } from './key.js';
import { multipartBody, type FormPart } from './multipart.js';
import { PagePromise } from './pagination.js';
import { DEFAULT_BACKOFF, type BackoffOptions } from './retry.js';
import type {
  ApiKeyInfo,
  Applicant,
  ApplicantCreateParams,
  DataSubjectRequest,
  DataSubjectRequestCreateParams,
  EvidenceArtifact,
  IdScanParams,
  IdScanResult,
  KeyType,
  ListParams,
  Mode,
  Page,
  Region,
  Session,
  SessionDecisionParams,
  SessionCreateParams,
  SessionListParams,
  WebhookAttempt,
  WebhookEventListParams,
  WorkflowTemplate,
  WorkflowTemplateCreateParams,
  WorkflowTemplateUpdateParams,
} from './types.js';
import { verifyWebhook } from './webhooks.js';

/** The local stack's gateways (README.md). */
export const DEFAULT_BASE_URLS: Readonly<Record<Region, string>> = { us: 'http://127.0.0.1:8080', eu: 'http://127.0.0.1:8081' };

export interface VerityOptions {
  /** `idv_{sk|pk}_{us|eu}_{live|test}_…`: region and mode are read from it. */
  apiKey: string;
  /** The gateway of each region; the key's region picks one. Defaults: the local stack. */
  baseUrls?: Partial<Record<Region, string>>;
  /** Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Retries of one call after a 429, a 503 or a lost connection (default 3). */
  maxRetries?: number;
  /** Per try, until the answer's headers (streams) or whole body (JSON) arrived (default 60 s). */
  timeoutMs?: number;
  /** A 429 whose `reset_at` is further away than this is not waited for but thrown (default 65 s: one window). */
  maxRateLimitWaitMs?: number;
  /** Backoff of 503s and lost connections: full jitter under min(capMs, baseMs · 2^retry) (default 500 ms, 8 s). */
  backoff?: Partial<BackoffOptions>;
}

/** An evidence image being streamed (`GET /v1/sessions/{id}/idv-image/{artifact}`). Read it one way, once. */
export interface ImageResponse {
  /** `image/jpeg` */
  contentType: string;
  contentLength: number | null;
  /** The bytes as a web stream. */
  body: ReadableStream<Uint8Array>;
  /** The bytes as a Node stream. */
  nodeStream(): Readable;
  /** The whole image in memory. */
  buffer(): Promise<Buffer>;
}

const id = (value: string) => encodeURIComponent(value);

/** A streamed image answer, to be read one way, once. */
function imageResponse(res: Response): ImageResponse {
  const body = res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const length = res.headers.get('content-length');
  return {
    contentType: res.headers.get('content-type') ?? 'application/octet-stream',
    contentLength: length !== null && /^[0-9]+$/.test(length) ? Number(length) : null,
    body,
    nodeStream: () => Readable.fromWeb(body as NodeWebStream<Uint8Array>),
    buffer: async () => Buffer.from(await new Response(body).arrayBuffer()),
  };
}

/** `GET /v1/me` */
export class MeResource {
  constructor(private readonly http: HttpClient) {}

  async get(options?: RequestOptions): Promise<ApiKeyInfo> {
    return (await this.http.json<{ data: ApiKeyInfo }>({ method: 'GET', path: '/v1/me', options })).data;
  }
}

/** A list route as a `PagePromise`: one page awaited, every item iterated. */
function lister<T>(http: HttpClient, path: string, params: ListParams = {}, options?: RequestOptions): PagePromise<T> {
  return new PagePromise<T>(
    (cursor) => http.json<Page<T>>({ method: 'GET', path, query: { ...params, cursor }, options }),
    params.cursor,
  );
}

/** `/v1/applicants` */
export class ApplicantsResource {
  constructor(private readonly http: HttpClient) {}

  async create(params: ApplicantCreateParams, options?: RequestOptions): Promise<Applicant> {
    return (await this.http.json<{ data: Applicant }>({ method: 'POST', path: '/v1/applicants', json: params, options })).data;
  }

  async get(applicantId: string, options?: RequestOptions): Promise<Applicant> {
    return (await this.http.json<{ data: Applicant }>({ method: 'GET', path: `/v1/applicants/${id(applicantId)}`, options })).data;
  }

  list(params?: ListParams, options?: RequestOptions): PagePromise<Applicant> {
    return lister(this.http, '/v1/applicants', params, options);
  }

  listAll(params?: ListParams, options?: RequestOptions): AsyncIterable<Applicant> {
    return this.list(params, options);
  }
}

/** `/v1/workflow-templates` */
export class WorkflowTemplatesResource {
  constructor(private readonly http: HttpClient) {}

  async create(params: WorkflowTemplateCreateParams, options?: RequestOptions): Promise<WorkflowTemplate> {
    return (await this.http.json<{ data: WorkflowTemplate }>({ method: 'POST', path: '/v1/workflow-templates', json: params, options })).data;
  }

  async get(templateId: string, options?: RequestOptions): Promise<WorkflowTemplate> {
    return (await this.http.json<{ data: WorkflowTemplate }>({ method: 'GET', path: `/v1/workflow-templates/${id(templateId)}`, options })).data;
  }

  /** A new version with only the fields sent changed. */
  async update(templateId: string, params: WorkflowTemplateUpdateParams, options?: RequestOptions): Promise<WorkflowTemplate> {
    return (await this.http.json<{ data: WorkflowTemplate }>({ method: 'PATCH', path: `/v1/workflow-templates/${id(templateId)}`, json: params, options })).data;
  }

  list(params?: ListParams, options?: RequestOptions): PagePromise<WorkflowTemplate> {
    return lister(this.http, '/v1/workflow-templates', params, options);
  }

  listAll(params?: ListParams, options?: RequestOptions): AsyncIterable<WorkflowTemplate> {
    return this.list(params, options);
  }
}

/** `/v1/sessions` */
export class SessionsResource {
  constructor(private readonly http: HttpClient) {}

  async create(params: SessionCreateParams, options?: RequestOptions): Promise<Session> {
    return (await this.http.json<{ data: Session }>({ method: 'POST', path: '/v1/sessions', json: params, options })).data;
  }

  /** One session, with `idv` when its run has an identity check. */
  async get(sessionId: string, options?: RequestOptions): Promise<Session> {
    return (await this.http.json<{ data: Session }>({ method: 'GET', path: `/v1/sessions/${id(sessionId)}`, options })).data;
  }

  list(params?: SessionListParams, options?: RequestOptions): PagePromise<Session> {
    return lister(this.http, '/v1/sessions', params, options);
  }

  listAll(params?: SessionListParams, options?: RequestOptions): AsyncIterable<Session> {
    return this.list(params, options);
  }

  /** Appends to `metadata.operatorNotes`; allowed in every status. */
  addNote(sessionId: string, note: string, options?: RequestOptions): Promise<Session> {
    return this.action(sessionId, 'notes', { note }, options);
  }

  cancel(sessionId: string, params: { reason?: string } = {}, options?: RequestOptions): Promise<Session> {
    return this.action(sessionId, 'cancel', params, options);
  }

  /** To `manual_review`. */
  review(sessionId: string, params: { reason?: string } = {}, options?: RequestOptions): Promise<Session> {
    return this.action(sessionId, 'review', params, options);
  }

  /** Only from `manual_review`: to `completed` with the outcome given. */
  decide(sessionId: string, params: SessionDecisionParams, options?: RequestOptions): Promise<Session> {
    return this.action(sessionId, 'decision', params, options);
  }

  /** Streams one evidence image (`portrait`, `front` or `selfie`, as `idv.available_images` lists them). */
  async image(sessionId: string, artifact: EvidenceArtifact, options?: RequestOptions): Promise<ImageResponse> {
    return imageResponse(await this.http.stream({ method: 'GET', path: `/v1/sessions/${id(sessionId)}/idv-image/${id(artifact)}`, options }));
  }

  private async action(sessionId: string, action: string, body: object, options?: RequestOptions): Promise<Session> {
    return (await this.http.json<{ data: Session }>({ method: 'POST', path: `/v1/sessions/${id(sessionId)}/${action}`, json: body, options })).data;
  }
}

/** `GET /v1/webhook-events`: one row per delivery attempt. */
export class WebhookEventsResource {
  constructor(private readonly http: HttpClient) {}

  list(params?: WebhookEventListParams, options?: RequestOptions): PagePromise<WebhookAttempt> {
    return lister(this.http, '/v1/webhook-events', params, options);
  }

  listAll(params?: WebhookEventListParams, options?: RequestOptions): AsyncIterable<WebhookAttempt> {
    return this.list(params, options);
  }
}

/** `/v1/data_subject_requests` */
export class DataSubjectRequestsResource {
  constructor(private readonly http: HttpClient) {}

  /** Starts an access or erasure request (202); it completes without an operator. */
  async create(params: DataSubjectRequestCreateParams, options?: RequestOptions): Promise<DataSubjectRequest> {
    return (await this.http.json<{ data: DataSubjectRequest }>({ method: 'POST', path: '/v1/data_subject_requests', json: params, options })).data;
  }

  /** With `export` (access) or `certificate` (erasure) once completed. */
  async get(requestId: string, options?: RequestOptions): Promise<DataSubjectRequest> {
    return (await this.http.json<{ data: DataSubjectRequest }>({ method: 'GET', path: `/v1/data_subject_requests/${id(requestId)}`, options })).data;
  }

  /**
   * Streams one image of a completed access export: `export.evidence[index]`, whose `url` this is. The read inlines
   * only the first `export.evidence_inlined` images; this one serves any of them.
   */
  async image(requestId: string, index: number, options?: RequestOptions): Promise<ImageResponse> {
    return imageResponse(await this.http.stream({ method: 'GET', path: `/v1/data_subject_requests/${id(requestId)}/images/${id(String(index))}`, options }));
  }
}

/** `POST /v1/id-verification` */
export class IdVerificationResource {
  constructor(private readonly http: HttpClient) {}

  /** Reads a document from its images (multipart `front`, `back`, `expected_outcome`). */
  async scan(images: IdScanParams, options?: RequestOptions): Promise<IdScanResult> {
    const parts: FormPart[] = [{ name: 'front', file: images.front, filename: 'front' }];
    if (images.back !== undefined) parts.push({ name: 'back', file: images.back, filename: 'back' });
    if (images.expected_outcome !== undefined) parts.push({ name: 'expected_outcome', value: images.expected_outcome });
    return (await this.http.json<{ data: IdScanResult }>({ method: 'POST', path: '/v1/id-verification', bytes: multipartBody(parts), options })).data;
  }
}

/** The Verity API client. One instance per key; region, mode and endpoint come from the key. */
export class Verity {
  /** Webhook signature verification; needs no key. */
  static readonly webhooks = { verify: verifyWebhook };

  readonly region: Region;
  readonly mode: Mode;
  readonly keyType: KeyType;
  /** The gateway this client calls: the key's region's. */
  readonly baseUrl: string;

  readonly me: MeResource;
  readonly applicants: ApplicantsResource;
  readonly workflowTemplates: WorkflowTemplatesResource;
  readonly sessions: SessionsResource;
  readonly webhookEvents: WebhookEventsResource;
  readonly dataSubjectRequests: DataSubjectRequestsResource;
  readonly idVerification: IdVerificationResource;

  constructor(options: VerityOptions) {
    const key = parseKey(options?.apiKey);
    this.region = key.region;
    this.mode = key.mode;
    this.keyType = key.type;
    this.baseUrl = options.baseUrls?.[key.region] ?? DEFAULT_BASE_URLS[key.region];
    const maxRetries = options.maxRetries ?? 3;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('maxRetries must be a whole number, 0 or more');
    const fetchFn = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
    const http = new HttpClient({
      baseUrl: this.baseUrl,
      apiKey: options.apiKey,
      fetch: fetchFn,
      maxRetries,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRateLimitWaitMs: options.maxRateLimitWaitMs ?? 65_000,
      backoff: { ...DEFAULT_BACKOFF, ...options.backoff },
    });
    this.me = new MeResource(http);
    this.applicants = new ApplicantsResource(http);
    this.workflowTemplates = new WorkflowTemplatesResource(http);
    this.sessions = new SessionsResource(http);
    this.webhookEvents = new WebhookEventsResource(http);
    this.dataSubjectRequests = new DataSubjectRequestsResource(http);
    this.idVerification = new IdVerificationResource(http);
  }
}
