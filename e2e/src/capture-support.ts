/** Helpers of the live capture tests: live sessions through the API, and a client holding only a client secret. */
import { capturePrincipal, SUBJECTS, type Capture, type CaptureImageCheck, type CaptureVerifyReply, type Session } from '@verity/contracts';
import { catalogueSpecimen, challengeFrames, selfie, type Person } from '@verity/specimens';
import { api, photographDocument, type ApiResponse, type DocumentPhotos } from '@verity/testing';
import { account, createSession, newApplicant, newTemplate, type Client, type One } from './sessions-support.js';
import { client, clientAs, type Region } from './support.js';

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
    frame: (index: number | string, bytes: Uint8Array, offsetMs: number | null, contentType = 'image/jpeg') =>
      c<{ data: { object: string; index: number; offset_ms: number; width: number; height: number } }>('PUT', `/v1/capture/challenge/frames/${index}${offsetMs === null ? '' : `?offset_ms=${offsetMs}`}`, {
        rawBody: bytes,
        headers: { 'content-type': contentType },
      }),
    check: (artifact: string, body?: unknown) => c<{ data: CaptureImageCheck }>('POST', `/v1/capture/images/${artifact}/check`, body === undefined ? {} : { body }),
    raw: c,
  };
}

/** Does the session's liveness challenge as `person`: reads the steps from `GET /v1/capture`, sends the frames of those turns. */
export async function doChallenge(capture: ReturnType<typeof captureClient>, person: Person): Promise<void> {
  const cap = ok(await capture.get()).data;
  if (!cap.challenge) throw new Error('this capture has no liveness challenge');
  for (const [i, f] of (await challengeFrames(person, cap.challenge.steps)).entries()) ok(await capture.frame(i, f.image, f.offsetMs));
}

/**
 * The region's reading of a submitted capture, as the sessions service gets it (`evidence.capture.verify.v1`, idempotent:
 * after the run it answers what the run got): each check with its reasons and score, until the session read carries them.
 */
export async function evidenceReply(region: Region, orgId: string, session: Session, challenge: Capture['challenge']): Promise<CaptureVerifyReply> {
  const rpc = await clientAs(region, 'sessions');
  const principal = capturePrincipal({ org_id: orgId, mode: session.mode }, region);
  return rpc.call(SUBJECTS.evidenceCaptureVerify, { session_id: session.id, acquisition: 'camera', challenge: challenge?.steps ?? [] }, { principal, requestId: 'req_e2e', timeoutMs: 30_000 });
}

/** The names and date of birth of the applicant `newApplicant` (sessions-support.ts) creates by default. */
export const DEFAULT_HOLDER = { familyName: 'Doe', givenNames: ['Jane'], dateOfBirth: '1990-04-01' } as const;

type HolderNames = { familyName: string; givenNames: readonly string[]; dateOfBirth: string };

/**
 * A passport of a real issuing state (so nothing holds against it), photographed, and its holder's selfie. It is
 * made out to `holder`: by default the person `newApplicant` creates, so that the live session's applicant is the
 * person on the document (contract §20: another person's document is never approved without review).
 */
export async function passportOf(i = 1, person?: Person, holder: HolderNames = DEFAULT_HOLDER): Promise<{ photos: DocumentPhotos; selfie: Buffer; person: Person }> {
  const s = catalogueSpecimen('td3', i);
  const specimen = {
    holder: { ...s.holder, familyName: holder.familyName, givenNames: [...holder.givenNames], dateOfBirth: holder.dateOfBirth, person: person ?? s.holder.person },
    document: { ...s.document, issuer: 'NLD' },
  };
  return { photos: await photographDocument(specimen, { width: 2400, height: 1800, rotation: 4, seed: i }), selfie: await selfie(specimen.holder.person), person: specimen.holder.person };
}

/** The checks of a read without their scores (which depend on the photographs): type, outcome, reasons. */
export function outcomes(checks: Session['checks']): Array<{ type: string; outcome: string | null; reasons: string[] }> {
  return checks.map((c) => ({ type: c.type, outcome: c.outcome, reasons: c.reasons }));
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
