/** Helpers of the live capture tests: live sessions through the API, and a client holding only a client secret. */
import type { Capture, Session } from '@verity/contracts';
import { catalogueSpecimen, selfie, type Person } from '@verity/specimens';
import { api, photographDocument, type ApiResponse, type DocumentPhotos } from '@verity/testing';
import { account, createSession, newApplicant, newTemplate, type Client, type One } from './sessions-support.js';
import { client, type Region } from './support.js';

export type CaptureOne = { data: Capture };

/** A live organization, its applicant and template, and one live session of it. */
export async function liveSession(region: Region = 'us', template: Record<string, unknown> = {}, applicant: Record<string, unknown> = {}) {
  const { org, key, c } = await account(region, 'live');
  const applicantId = await newApplicant(c, applicant);
  const templateId = await newTemplate(c, template);
  const res = await createSession(c, { applicant_id: applicantId, workflow_template_id: templateId });
  if (res.status !== 201) throw new Error(`live session not created: ${res.status} ${res.text}`);
  const session: Session = res.body.data;
  return { org, key, c, applicantId, templateId, session, secret: session.client_secret!, capture: captureClient(region, session.client_secret!) };
}

/** What the hosted page (or a business's own) does: calls the capture API with the client secret alone. */
export function captureClient(region: Region, secret: string) {
  const c = client(region, secret);
  return {
    get: () => c<CaptureOne>('GET', '/v1/capture'),
    put: (artifact: string, bytes: Uint8Array, contentType = 'image/jpeg') => c<{ data: { object: string; artifact: string; width: number; height: number } }>('PUT', `/v1/capture/images/${artifact}`, { rawBody: bytes, headers: { 'content-type': contentType } }),
    submit: (body: unknown = { acquisition: 'camera' }) => c<CaptureOne>('POST', '/v1/capture/submit', { body }),
    skip: (step: string) => c<CaptureOne>('POST', '/v1/capture/skip', { body: { step } }),
    raw: c,
  };
}

/** A passport of a real issuing state (so nothing holds against it), photographed, and its holder's selfie. */
export async function passportOf(i = 1, person?: Person): Promise<{ photos: DocumentPhotos; selfie: Buffer; person: Person }> {
  const s = catalogueSpecimen('td3', i);
  const specimen = { holder: { ...s.holder, person: person ?? s.holder.person }, document: { ...s.document, issuer: 'NLD' } };
  return { photos: await photographDocument(specimen, { width: 2400, height: 1800, rotation: 4, seed: i }), selfie: await selfie(specimen.holder.person), person: specimen.holder.person };
}

export async function read(c: Client, id: string): Promise<Session> {
  const r = await c<One>('GET', `/v1/sessions/${id}`);
  if (r.status !== 200) throw new Error(`session read ${r.status} ${r.text}`);
  return r.body.data;
}

export function ok<T>(res: ApiResponse<T>, status = 200): T {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
  return res.body;
}

/** `captureClient` against the gateway at `base`: a stack the test started itself (crash tests), not the shared one. */
export function captureClientAt(base: string, secret: string) {
  const c = <T = Record<string, unknown>>(method: string, p: string, opts: { body?: unknown; rawBody?: Uint8Array; headers?: Record<string, string> } = {}) =>
    api<T>(base, method, p, { key: secret, ...opts });
  return {
    get: () => c<CaptureOne>('GET', '/v1/capture'),
    put: (artifact: string, bytes: Uint8Array, contentType = 'image/jpeg') => c<{ data: { object: string; artifact: string } }>('PUT', `/v1/capture/images/${artifact}`, { rawBody: bytes, headers: { 'content-type': contentType } }),
    submit: (body: unknown = { acquisition: 'camera' }) => c<CaptureOne>('POST', '/v1/capture/submit', { body }),
  };
}
