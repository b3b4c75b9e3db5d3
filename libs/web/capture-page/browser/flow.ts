/**
 * The order of the flow and what a refusal means to the applicant: pure, so node:test runs it
 * (src/flow.spec.ts). capture.ts drives the screens from it.
 */

export type CaptureStep = 'document_front' | 'document_back' | 'selfie';
export type Artifact = 'front' | 'back' | 'selfie';
export type DocumentType = 'passport' | 'identity_card' | 'driving_licence';
export const DOCUMENT_TYPES: readonly DocumentType[] = ['passport', 'identity_card', 'driving_licence'];

export const ARTIFACT_OF: Record<CaptureStep, Artifact> = {
  document_front: 'front',
  document_back: 'back',
  selfie: 'selfie',
};

/** What `GET /v1/capture` answers (docs/capture.md), as far as the page needs it. */
export interface CaptureView {
  session_id: string;
  status: string;
  steps: CaptureStep[];
  photo_upload: boolean;
  device_intelligence: boolean;
  expires_at: string;
  images: Record<Artifact, { width: number; height: number } | null>;
  submitted_at: string | null;
  /** The liveness challenge, when the workflow checks liveness. */
  challenge?: ChallengeView | null;
}

export type ChallengeStep = 'turn_left' | 'turn_right';

export interface ChallengeView {
  steps: ChallengeStep[];
  frames: { min: number; max: number; max_bytes: number };
  frames_received: number;
}

export type Screen = 'document_type' | CaptureStep | 'challenge' | 'submit';

/** Whether the capture can still be worked on, from its own answer. */
export function captureState(c: Pick<CaptureView, 'status' | 'submitted_at' | 'expires_at'>, now: number): 'open' | 'used' | 'expired' {
  if (c.submitted_at !== null) return 'used';
  if (c.status !== 'pending' && c.status !== 'in_progress') return c.status === 'expired' ? 'expired' : 'used';
  if (Date.parse(c.expires_at) <= now) return 'expired';
  return 'open';
}

/** Whether the document needs its back photographed: cards and licences carry their machine-readable data there. */
export function needsBack(steps: readonly CaptureStep[], documentType: DocumentType | null): boolean {
  return steps.includes('document_back') && documentType !== 'passport';
}

/** The photo steps of this capture for this document, in order (for "Photo 2 of 3"). */
export function photoSteps(steps: readonly CaptureStep[], documentType: DocumentType | null): CaptureStep[] {
  return (['document_front', 'document_back', 'selfie'] as const).filter(
    (s) => steps.includes(s) && (s !== 'document_back' || needsBack(steps, documentType)),
  );
}

/**
 * The screens still to do, in order, given what is uploaded: resumes where the applicant left off. The document
 * type is asked when a document photo is still missing and the page does not know it.
 */
export function remainingScreens(
  steps: readonly CaptureStep[],
  uploaded: Record<Artifact, boolean>,
  documentType: DocumentType | null,
  challengePending = false,
): Screen[] {
  const out: Screen[] = [];
  const missingFront = steps.includes('document_front') && !uploaded.front;
  const missingBack = steps.includes('document_back') && !uploaded.back;
  // with the front uploaded and the back not, only the type tells whether a back is still needed
  if (documentType === null && steps.includes('document_front') && (missingFront || missingBack)) out.push('document_type');
  if (missingFront) out.push('document_front');
  // the type is unknown until asked: plan the back, and drop it once the answer is "passport"
  if (missingBack && documentType !== 'passport') out.push('document_back');
  if (steps.includes('selfie') && !uploaded.selfie) out.push('selfie');
  if (challengePending) out.push('challenge');
  out.push('submit');
  return out;
}

/** How long each part of the liveness challenge lasts (milliseconds): looking at the screen first, each turn, each return. */
export const CHALLENGE_PACE = { settleMs: 1500, turnMs: 2000, backMs: 1500 } as const;
/** A frame is taken this long before the end of its part, once the head has had time to get there. */
const FRAME_LEAD_MS = 400;
/** Frames of the challenge: the longest side of each, in pixels, and their JPEG quality. */
export const CHALLENGE_FRAME = { maxSide: 640, quality: 0.85 } as const;

export type ChallengePrompt = 'ahead' | ChallengeStep;

/**
 * The timeline of the liveness challenge, from the moment the camera shows its first picture: what to ask when
 * (look at the screen, turn, look back…), and when to take each frame (one looking ahead, then one at the end of
 * each turn and of each return). 2 turns: 5 frames over 8.5 s; 3 turns: 7 over 12 s.
 */
export function challengeSchedule(steps: readonly ChallengeStep[]): { prompts: { atMs: number; prompt: ChallengePrompt }[]; frames: number[]; endMs: number } {
  const { settleMs, turnMs, backMs } = CHALLENGE_PACE;
  const prompts: { atMs: number; prompt: ChallengePrompt }[] = [{ atMs: 0, prompt: 'ahead' }];
  const frames = [settleMs - FRAME_LEAD_MS];
  let t = settleMs;
  for (const step of steps) {
    prompts.push({ atMs: t, prompt: step });
    frames.push(t + turnMs - FRAME_LEAD_MS);
    t += turnMs;
    prompts.push({ atMs: t, prompt: 'ahead' });
    frames.push(t + backMs - FRAME_LEAD_MS);
    t += backMs;
  }
  return { prompts, frames, endMs: t };
}

/** What the applicant reads during the challenge. */
export const CHALLENGE_WORDS: Record<ChallengePrompt, string> = {
  ahead: 'Look at the screen',
  turn_left: '← Turn your head to your left',
  turn_right: 'Turn your head to your right →',
};

/** The step a skip names: the photo step under way, or else the first one still to do. */
export function skipStep(current: Screen | null, remaining: readonly Screen[], steps: readonly CaptureStep[]): CaptureStep {
  const isStep = (s: Screen | null): s is CaptureStep => s === 'document_front' || s === 'document_back' || s === 'selfie';
  if (isStep(current)) return current;
  // the challenge is part of the selfie step
  if (current === 'challenge') return 'selfie';
  const next = remaining.find(isStep);
  return next ?? steps[0] ?? 'document_front';
}

/** How the link stands when the API refuses it. */
export type LinkProblem = 'unknown' | 'used' | 'expired';

/** What the page does with a refused request: tell the applicant, and either offer a retry or end the flow. */
export type Refusal =
  | { kind: 'link'; link: LinkProblem }
  | { kind: 'retry'; message: string }
  | { kind: 'missing'; artifact: Artifact; message: string };

export const MESSAGES = {
  tooLarge: 'This photo is too large. Please take a new photo, or choose a smaller one.',
  unsupported: 'We can’t use this type of file. Please choose a JPEG, PNG or WebP photo.',
  invalidImage: 'We couldn’t open this photo. Please take it again.',
  unreadableFile: 'We can’t open this file. Please choose a photo in JPEG, PNG or WebP.',
  rateLimited: 'You tried many times in a short time. Please wait a minute, then try again.',
  network: 'We couldn’t reach our server. Check your internet connection, then try again.',
  server: 'Something went wrong on our side. Please try again in a minute.',
  other: 'Something went wrong. Please try again.',
} as const;

const MISSING: Record<Artifact, string> = {
  front: 'We still need a photo of your document.',
  back: 'We still need a photo of the back of your document.',
  selfie: 'We still need a photo of your face.',
};

/**
 * A refusal of the capture API (`status` 0: no answer at all) in plain words. `code` and `param` are from the
 * error envelope `{ error: { code, message, param } }` when there was one.
 */
export function describeRefusal(status: number, code: string | null, param: string | null): Refusal {
  if (status === 401) return { kind: 'link', link: 'unknown' };
  if (status === 409) return { kind: 'link', link: 'used' };
  if (status === 410) return { kind: 'link', link: 'expired' };
  if (status === 413) return { kind: 'retry', message: MESSAGES.tooLarge };
  if (status === 415) return { kind: 'retry', message: MESSAGES.unsupported };
  if (status === 422) {
    if (code === 'validation_error' && (param === 'front' || param === 'back' || param === 'selfie')) {
      return { kind: 'missing', artifact: param, message: MISSING[param] };
    }
    if (code === 'invalid_image') return { kind: 'retry', message: MESSAGES.invalidImage };
    return { kind: 'retry', message: MESSAGES.other };
  }
  if (status === 429) return { kind: 'retry', message: MESSAGES.rateLimited };
  if (status === 0) return { kind: 'retry', message: MESSAGES.network };
  if (status >= 500) return { kind: 'retry', message: MESSAGES.server };
  return { kind: 'retry', message: MESSAGES.other };
}
