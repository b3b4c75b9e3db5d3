/**
 * The hosted capture page's script (docs/capture.md): consent, the document, its back, a selfie,
 * submit. Plain DOM; it talks only to the capture API of its own origin with the client secret the page carries
 * in <meta name="capture-secret">. The measures and the order of the flow are pure modules (analysis.ts,
 * flow.ts); this file is the part that needs a browser.
 */
import type * as AnalysisModule from './analysis.js';
import type * as FlowModule from './flow.js';
import type * as FaceModule from './face.js';
import type { Artifact, CaptureStep, CaptureView, DocumentType, LinkProblem, Screen } from './flow.js';
import type { FrameAssessment, Rect } from './analysis.js';

// The modules are loaded with this file's own version query, so that a browser never mixes cached files of two
// releases (the gateway serves assets with a max-age).
const version = new URL(import.meta.url).search;
const [analysis, flow] = (await Promise.all([import(`./analysis.js${version}`), import(`./flow.js${version}`)])) as [
  typeof AnalysisModule,
  typeof FlowModule,
];
const { ANALYSIS_SIZE, JPEG_QUALITY, UPLOAD_MAX_SIDE, StepClock, assessFrame, collectSignals, fitWithin, guideInFrame, scaleRect, toGray } = analysis;
const { ARTIFACT_OF, CHALLENGE_FRAME, CHALLENGE_WORDS, DOCUMENT_TYPES, captureState, challengeSchedule, describeRefusal, photoSteps, remainingScreens, skipStep } = flow;

// ---------------------------------------------------------------------------------------------------------------
// Page elements

function el<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing`);
  return e as T;
}

const secret = document.querySelector<HTMLMetaElement>('meta[name="capture-secret"]')?.content ?? '';
const apiBase = new URL('../v1/capture', location.href).pathname;

const statusRegion = el('status');
const progress = el('progress');
const video = el<HTMLVideoElement>('video');
const viewfinder = el('viewfinder');
const guide = el('guide');
const fileInput = el<HTMLInputElement>('file');
const shootButton = el<HTMLButtonElement>('shoot-button');
const cameraRetry = el<HTMLButtonElement>('camera-retry');
const chooseFile = el<HTMLButtonElement>('choose-file');
const cameraWait = el('camera-wait');
const faceGuidance = el('face-guidance');
const cameraProblem = el('camera-problem');
const reviewImage = el<HTMLImageElement>('review-image');
const reviewFeedback = el('review-feedback');
const acceptButton = el<HTMLButtonElement>('accept-button');
const retakeButton = el<HTMLButtonElement>('retake-button');
const submitButton = el<HTMLButtonElement>('submit-button');
const submitProblem = el('submit-problem');
const skipConfirm = el<HTMLButtonElement>('skip-confirm');
const challengeVideo = el<HTMLVideoElement>('challenge-video');
const challengePrompt = el('challenge-prompt');
const challengeProblem = el('challenge-problem');
const challengeStart = el<HTMLButtonElement>('challenge-start');
const skipProblem = el('skip-problem');

type ScreenId =
  | 'loading'
  | 'consent'
  | 'document-type'
  | 'camera'
  | 'review'
  | 'challenge'
  | 'submit'
  | 'done'
  | 'skip'
  | 'skipped'
  | 'link'
  | 'problem';

// ---------------------------------------------------------------------------------------------------------------
// State

interface Shot {
  step: CaptureStep;
  blob: Blob;
  url: string;
  source: 'camera' | 'upload';
  assessment: FrameAssessment;
}

const state = {
  capture: null as CaptureView | null,
  documentType: null as DocumentType | null,
  uploaded: { front: false, back: false, selfie: false } as Record<Artifact, boolean>,
  /** Whether any image of this capture came from a chosen file (kept across visits). */
  usedUpload: false,
  screen: 'loading' as ScreenId,
  /** The photo step on screen (camera or review), or the flow screen the skip question came from. */
  step: null as Screen | null,
  shot: null as Shot | null,
  /** Whether the region's check of the photo on review found it unusable (it is uploaded: "use anyway" goes on). */
  checkedUnusable: false,
  /** Whether the liveness challenge's frames were all sent on this visit. */
  challengeSent: false,
  busy: false,
};

const clock = new StepClock();
let pasteCount = 0;
document.addEventListener('paste', () => {
  pasteCount++;
});

// Progress survives a reload or a second visit on the same device: the document type and whether a photo was
// chosen from a file. Nothing else (no image, no personal data) is kept.
function storageKey(): string | null {
  return state.capture ? `verity-capture:${state.capture.session_id}` : null;
}

function saveProgress(): void {
  const key = storageKey();
  if (!key) return;
  try {
    localStorage.setItem(key, JSON.stringify({ documentType: state.documentType, usedUpload: state.usedUpload }));
  } catch {
    // storage may be off (private mode): the flow still works, it only forgets on reload
  }
}

function loadProgress(): void {
  const key = storageKey();
  if (!key) return;
  try {
    const raw = localStorage.getItem(key);
    if (!raw) return;
    const saved = JSON.parse(raw) as { documentType?: unknown; usedUpload?: unknown };
    if (DOCUMENT_TYPES.includes(saved.documentType as DocumentType)) state.documentType = saved.documentType as DocumentType;
    state.usedUpload = saved.usedUpload === true;
  } catch {
    // unreadable: start afresh
  }
}

function forgetProgress(): void {
  const key = storageKey();
  try {
    if (key) localStorage.removeItem(key);
  } catch {
    // nothing to forget
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Screens

/** Says something to screen readers (the polite status region); emptied first so that a repeat is said again. */
function announce(text: string): void {
  statusRegion.textContent = '';
  window.setTimeout(() => {
    statusRegion.textContent = text;
  }, 50);
}

const TIMED: Partial<Record<ScreenId, true>> = { consent: true, 'document-type': true, camera: true, review: true, challenge: true, submit: true };

function timedName(id: ScreenId): string | null {
  if (!TIMED[id]) return null;
  if (id === 'camera' || id === 'review') return state.step;
  return id === 'document-type' ? 'document_type' : id;
}

/** Shows one screen, hides the others, and moves the focus to its heading so that it is read out. */
function show(id: ScreenId, focus: HTMLElement | null = null): void {
  if (id !== 'camera' && id !== 'challenge') stopCamera();
  for (const s of document.querySelectorAll<HTMLElement>('section.screen')) s.hidden = s.id !== `screen-${id}`;
  state.screen = id;
  const timed = timedName(id);
  if (timed) clock.enter(timed, performance.now());
  else clock.leave(performance.now());
  updateProgress();
  const heading = focus ?? el(`screen-${id}`).querySelector<HTMLElement>('h1:not([hidden])');
  window.scrollTo(0, 0);
  heading?.focus();
}

function isPhotoStep(s: Screen | null): s is CaptureStep {
  return s === 'document_front' || s === 'document_back' || s === 'selfie';
}

function updateProgress(): void {
  const steps = state.capture ? photoSteps(state.capture.steps, state.documentType) : [];
  const onPhoto = (state.screen === 'camera' || state.screen === 'review') && isPhotoStep(state.step);
  const index = onPhoto ? steps.indexOf(state.step as CaptureStep) : -1;
  progress.hidden = index < 0;
  progress.textContent = index < 0 ? '' : `Photo ${index + 1} of ${steps.length}`;
}

function showLink(problem: LinkProblem): void {
  forgetProgress();
  const screen = el('screen-link');
  let heading: HTMLElement | null = null;
  for (const d of screen.querySelectorAll<HTMLElement>('[data-link]')) {
    d.hidden = d.dataset.link !== problem;
    if (!d.hidden) heading = d.querySelector('h1');
  }
  show('link', heading);
}

function showProblem(message: string): void {
  el('problem-text').textContent = message;
  show('problem');
}

function notice(target: HTMLElement, message: string | null): void {
  target.textContent = message ?? '';
  target.hidden = message === null;
  if (message) announce(message);
}

/** Whether the liveness challenge is still to do: the workflow has one, and not enough frames of it were sent. */
function challengePending(): boolean {
  const ch = state.capture?.challenge;
  return !!ch && !state.challengeSent && ch.frames_received < ch.frames.min;
}

/** Goes on with the first screen still to do. */
function next(): void {
  const c = state.capture!;
  const [first] = remainingScreens(c.steps, state.uploaded, state.documentType, challengePending());
  if (first === 'document_type') show('document-type');
  else if (first === 'challenge') openChallenge();
  else if (first === 'submit' || first === undefined) {
    notice(submitProblem, null);
    show('submit');
  } else openStep(first);
}

// ---------------------------------------------------------------------------------------------------------------
// The words of each photo step

function documentName(): string {
  switch (state.documentType) {
    case 'passport':
      return 'passport';
    case 'identity_card':
      return 'identity card';
    case 'driving_licence':
      return 'driving licence';
    default:
      return 'document';
  }
}

function stepTitle(step: CaptureStep): string {
  if (step === 'selfie') return 'Photo of your face';
  if (step === 'document_back') return `Back of your ${documentName()}`;
  return state.documentType === 'passport' ? 'Photo page of your passport' : `Front of your ${documentName()}`;
}

function stepHint(step: CaptureStep): string {
  if (step === 'selfie') return 'Look straight at the camera. Fit your face inside the oval. Take off sunglasses or a hat.';
  if (step === 'document_back') return 'Turn the card over. Fit the whole card inside the frame.';
  if (state.documentType === 'passport') return 'Open your passport at the page with your photo. Fit the whole page inside the frame.';
  return 'Lay the card flat on a dark surface. Fit the whole card inside the frame.';
}

const ISSUE_TEXT: Record<string, string> = {
  dark: 'This photo is too dark. Move closer to a light, then take it again.',
  blurry: 'This photo is blurry. Hold still, then take it again.',
  no_document: 'We can’t see your document. Fit the whole document inside the frame, then take it again.',
};

// ---------------------------------------------------------------------------------------------------------------
// Camera

let stream: MediaStream | null = null;
/** Bumped each time the camera is started or stopped: a late answer of getUserMedia is dropped. */
let cameraTurn = 0;

function stopCamera(): void {
  cameraTurn++;
  if (stream) for (const t of stream.getTracks()) t.stop();
  stream = null;
  video.srcObject = null;
  challengeVideo.srcObject = null;
}

function cameraFailure(name: string): string {
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return 'We can’t use your camera. Allow camera access for this page in your browser settings, then try again.';
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'We can’t find a camera on this device.';
    case 'NotReadableError':
    case 'AbortError':
      return 'Your camera is busy. Close other apps that use it, then try again.';
    default:
      return 'We can’t start your camera. Please try again.';
  }
}

async function startCamera(step: CaptureStep): Promise<void> {
  stopCamera();
  const turn = cameraTurn;
  shootButton.disabled = true;
  shootButton.hidden = false;
  unguided(false);
  cameraRetry.hidden = true;
  cameraWait.hidden = false;
  cameraWait.textContent = 'Starting the camera…';
  if (!navigator.mediaDevices?.getUserMedia) {
    cameraUnavailable('This browser can’t use the camera here. Open the link in Chrome, Safari or Firefox.', false);
    return;
  }
  // a width only: asking for a height too makes browsers crop the frame to that shape
  const video_: MediaTrackConstraints =
    step === 'selfie'
      ? { facingMode: { ideal: 'user' }, width: { ideal: 1280 } }
      : { facingMode: { ideal: 'environment' }, width: { ideal: 1920 } };
  let s: MediaStream;
  try {
    s = await navigator.mediaDevices.getUserMedia({ audio: false, video: video_ });
  } catch (e) {
    if (turn !== cameraTurn) return;
    cameraUnavailable(cameraFailure((e as { name?: string }).name ?? ''), true);
    return;
  }
  if (turn !== cameraTurn) {
    // the applicant left the step while the browser was asking
    for (const t of s.getTracks()) t.stop();
    return;
  }
  stream = s;
  video.srcObject = s;
  await video.play().catch(() => undefined);
  // a frame to draw, not only its size
  if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) {
    await new Promise((r) => video.addEventListener('loadeddata', r, { once: true }));
  }
  if (turn !== cameraTurn) return;
  cameraWait.hidden = true;
  announce('The camera is on.');
  if (step === 'selfie') void guideFace(turn);
  else shootButton.disabled = false;
}

// ---------------------------------------------------------------------------------------------------------------
// The selfie's face guide (face.ts, oval.ts): the shutter waits until the face is inside the oval

let faceModule: Promise<typeof FaceModule> | null = null;

/** The face guide's module, imported on first use (the selfie step); a failed import is tried again next time. */
function loadFaceModule(): Promise<typeof FaceModule> {
  faceModule ??= (import(`./face.js${version}`) as Promise<typeof FaceModule>).catch((e: unknown) => {
    faceModule = null;
    throw e;
  });
  return faceModule;
}

/** Starts fetching the guide's files while the camera starts, without waiting for them. */
function prepareFaceGuide(): void {
  loadFaceModule()
    .then((f) => f.faceDetector())
    .catch(() => undefined);
}

/** No guide on this camera: its words hidden, and the shutter as the camera allows. */
function unguided(enable: boolean): void {
  faceGuidance.hidden = true;
  faceGuidance.textContent = '';
  delete viewfinder.dataset.fit;
  shootButton.removeAttribute('aria-describedby');
  if (enable) shootButton.disabled = false;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = window.setTimeout(() => reject(new Error('timed out')), ms);
    p.then(
      (v) => {
        window.clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        window.clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
}

const sleep = (ms: number) => new Promise<void>((r) => window.setTimeout(r, ms));

/**
 * Looks at the selfie camera a few times a second and says where the face is against the oval, over the picture
 * and through the status region; the shutter is enabled once the face has held still inside it. Where the detector
 * cannot be had in time, is too slow, or fails, the shutter works as it does for a document: the region's checks
 * judge the photo.
 */
async function guideFace(turn: number): Promise<void> {
  const live = () => turn === cameraTurn && state.screen === 'camera' && state.step === 'selfie';
  const started = performance.now();
  faceGuidance.hidden = false;
  faceGuidance.textContent = 'Getting ready…';
  let face: typeof FaceModule;
  let detector: FaceModule.FaceDetector;
  try {
    // the guide's module first (10 s: its GUIDE_TIMING.loadMs, not known before it loads), then the detector in
    // what is left of that
    face = await withTimeout(loadFaceModule(), 10_000);
    detector = await withTimeout(face.faceDetector(), Math.max(1, face.GUIDE_TIMING.loadMs - (performance.now() - started)));
  } catch {
    if (live()) unguided(true);
    return;
  }
  if (!live()) return;
  const timing = face.GUIDE_TIMING;
  const guide = new face.FaceGuide();
  shootButton.setAttribute('aria-describedby', 'face-guidance');
  let said: string | null = null;
  let seen: string | null = null;
  let saidGaveUp = false;
  while (live()) {
    const t = performance.now();
    const frame = { width: video.videoWidth, height: video.videoHeight };
    const box = viewfinder.getBoundingClientRect();
    const size = { width: box.width, height: box.height };
    let found: Rect | null;
    try {
      if (frame.width === 0 || size.width === 0) throw new Error('no picture');
      found = await detector.detect(video, guideInFrame(frame, size, { x: 0, y: 0, width: 1, height: 1 }));
    } catch {
      if (live()) unguided(true);
      return;
    }
    if (!live()) return;
    const now = performance.now();
    if (now - t > timing.slowLookMs) {
      unguided(true);
      return;
    }
    const where = guide.look(found, guideInFrame(frame, size, guideFraction()), now);
    const words = face.GUIDE_WORDS[where];
    const enabled = face.shutterEnabled(where, now - started);
    const gaveUp = enabled && where !== 'ready';
    shootButton.disabled = !enabled;
    viewfinder.dataset.fit = where;
    faceGuidance.textContent = words;
    if (gaveUp && !saidGaveUp) {
      // the shutter works now whatever the guide sees: a screen reader hears it once
      saidGaveUp = true;
      said = words;
      announce(`${words}, or take the photo now.`);
    } else if (words !== said && (words === seen || where === 'ready')) {
      // said once it held for two looks (a face on the oval's edge does not chatter), or at once when ready
      said = words;
      announce(words);
    }
    seen = words;
    await sleep(Math.max(0, timing.lookEveryMs - (performance.now() - t)));
  }
}

function cameraUnavailable(message: string, canRetry: boolean): void {
  cameraWait.hidden = true;
  shootButton.hidden = true;
  cameraRetry.hidden = !canRetry;
  const upload = state.capture?.photo_upload === true;
  notice(cameraProblem, upload ? `${message} You can also choose a photo instead.` : message);
  // the first thing to do next gets the focus: retrying, or else choosing a file
  if (canRetry) cameraRetry.focus();
  else if (upload) chooseFile.focus();
}

/** Where the guide is, as fractions of the viewfinder box. */
function guideFraction(): Rect {
  const box = viewfinder.getBoundingClientRect();
  const g = guide.getBoundingClientRect();
  return {
    x: (g.left - box.left) / box.width,
    y: (g.top - box.top) / box.height,
    width: g.width / box.width,
    height: g.height / box.height,
  };
}

function canvasOf(width: number, height: number): { canvas: HTMLCanvasElement; ctx: CanvasRenderingContext2D } {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2d context');
  return { canvas, ctx };
}

function toJpeg(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('encoding failed'))), 'image/jpeg', JPEG_QUALITY),
  );
}

/** The instant feedback, on a small copy of the picture. `guide` is in the picture's own pixels. */
function assess(source: CanvasImageSource, width: number, height: number, kind: 'document' | 'selfie', guideRect?: Rect): FrameAssessment {
  const small = fitWithin(width, height, ANALYSIS_SIZE);
  const { ctx } = canvasOf(small.width, small.height);
  ctx.drawImage(source, 0, 0, small.width, small.height);
  const pixels = ctx.getImageData(0, 0, small.width, small.height);
  const gray = toGray(pixels.data, small.width, small.height);
  return assessFrame(gray, kind, guideRect && scaleRect(guideRect, { width, height }, small));
}

/** Draws the picture at most UPLOAD_MAX_SIDE a side and encodes it as JPEG. */
async function encode(source: CanvasImageSource, width: number, height: number): Promise<{ blob: Blob; canvas: HTMLCanvasElement }> {
  const size = fitWithin(width, height, UPLOAD_MAX_SIDE);
  const { canvas, ctx } = canvasOf(size.width, size.height);
  ctx.drawImage(source, 0, 0, size.width, size.height);
  return { blob: await toJpeg(canvas), canvas };
}

async function shoot(): Promise<void> {
  const step = state.step;
  if (!isPhotoStep(step) || !stream || video.videoWidth === 0) return;
  shootButton.disabled = true;
  const frame = { width: video.videoWidth, height: video.videoHeight };
  const box = viewfinder.getBoundingClientRect();
  const guideRect = guideInFrame(frame, { width: box.width, height: box.height }, guideFraction());
  let shot: { blob: Blob; canvas: HTMLCanvasElement };
  try {
    shot = await encode(video, frame.width, frame.height);
  } catch {
    shootButton.disabled = false;
    notice(cameraProblem, 'We couldn’t take the photo. Please try again.');
    return;
  }
  // one track per photo: the next step asks for its own camera
  stopCamera();
  const kind = step === 'selfie' ? 'selfie' : 'document';
  const assessment = assess(shot.canvas, shot.canvas.width, shot.canvas.height, kind, scaleRect(guideRect, frame, shot.canvas));
  review({ step, blob: shot.blob, url: URL.createObjectURL(shot.blob), source: 'camera', assessment });
}

/** Decodes a chosen file, EXIF orientation applied. */
async function decode(file: File): Promise<{ source: CanvasImageSource; width: number; height: number; close: () => void }> {
  if (typeof createImageBitmap === 'function') {
    try {
      const b = await createImageBitmap(file, { imageOrientation: 'from-image' });
      return { source: b, width: b.width, height: b.height, close: () => b.close() };
    } catch {
      // fall back to an <img>, which some browsers decode more formats with
    }
  }
  const url = URL.createObjectURL(file);
  const img = new Image();
  img.src = url;
  try {
    await img.decode();
  } finally {
    URL.revokeObjectURL(url);
  }
  return { source: img, width: img.naturalWidth, height: img.naturalHeight, close: () => undefined };
}

async function fromFile(file: File): Promise<void> {
  const step = state.step;
  if (!isPhotoStep(step)) return;
  const where = state.screen === 'review' ? reviewFeedback : cameraProblem;
  if (file.type !== '' && !/^image\/(jpeg|png|webp)$/.test(file.type)) {
    showFeedback(where, flow.MESSAGES.unsupported, true);
    return;
  }
  let picture: Awaited<ReturnType<typeof decode>>;
  try {
    picture = await decode(file);
  } catch {
    showFeedback(where, flow.MESSAGES.unreadableFile, true);
    return;
  }
  try {
    const { blob, canvas } = await encode(picture.source, picture.width, picture.height);
    // no guide on a chosen photo: the whole picture is measured
    const assessment = assess(canvas, canvas.width, canvas.height, step === 'selfie' ? 'selfie' : 'document');
    stopCamera();
    review({ step, blob, url: URL.createObjectURL(blob), source: 'upload', assessment });
  } catch {
    showFeedback(where, flow.MESSAGES.unreadableFile, true);
  } finally {
    picture.close();
  }
}

function showFeedback(target: HTMLElement, message: string, isError: boolean): void {
  target.textContent = message;
  target.hidden = false;
  target.classList.toggle('is-error', isError);
  announce(message);
}

// ---------------------------------------------------------------------------------------------------------------
// Steps

function openStep(step: CaptureStep, message: string | null = null): void {
  state.step = step;
  el('camera-title').textContent = stepTitle(step);
  el('camera-hint').textContent = stepHint(step);
  viewfinder.dataset.shape = step === 'selfie' ? 'face' : 'document';
  if (step === 'selfie') prepareFaceGuide();
  viewfinder.dataset.document = state.documentType === 'passport' ? 'passport' : 'card';
  chooseFile.hidden = state.capture?.photo_upload !== true;
  notice(cameraProblem, message);
  show('camera');
  void startCamera(step);
}

function review(shot: Shot): void {
  if (state.shot) URL.revokeObjectURL(state.shot.url);
  state.shot = shot;
  state.checkedUnusable = false;
  const title = stepTitle(shot.step);
  reviewImage.src = shot.url;
  reviewImage.alt = `Your photo: ${title.charAt(0).toLowerCase()}${title.slice(1)}`;
  const issue = shot.assessment.issues[0];
  const actions = acceptButton.parentElement!;
  acceptButton.disabled = false;
  retakeButton.disabled = false;
  retakeButton.textContent = shot.source === 'upload' ? 'Choose another photo' : 'Take a new photo';
  if (issue) {
    // the retake is what we suggest: it comes first and looks like it
    acceptButton.textContent = 'Use this photo anyway';
    acceptButton.className = 'secondary';
    retakeButton.className = 'primary';
    actions.insertBefore(retakeButton, acceptButton);
    reviewFeedback.classList.add('is-warning');
    reviewFeedback.classList.remove('is-error');
    reviewFeedback.textContent = ISSUE_TEXT[issue] ?? '';
  } else {
    acceptButton.textContent = 'Use this photo';
    acceptButton.className = 'primary';
    retakeButton.className = 'secondary';
    actions.insertBefore(acceptButton, retakeButton);
    reviewFeedback.classList.remove('is-warning', 'is-error');
    reviewFeedback.textContent =
      shot.step === 'selfie' ? 'Make sure your whole face is clear and easy to see.' : 'Make sure all the text is sharp and easy to read.';
  }
  show('review');
  announce(`Photo taken. ${reviewFeedback.textContent}`);
}

/** The document type as the capture API names it. */
function documentTypeParam(): string | undefined {
  if (state.documentType === 'driving_licence') return 'driver_license';
  return state.documentType ?? undefined;
}

/**
 * The region's check of an uploaded photo (`POST /v1/capture/images/{artifact}/check`): what only its reader can
 * tell (a readable document, one usable face). Null when the check could not be made: the flow goes on, as the
 * photo is stored and the run will judge it.
 */
async function serverCheck(artifact: Artifact): Promise<{ usable: boolean; message: string | null } | null> {
  const body = artifact === 'selfie' ? {} : { document_type: documentTypeParam() };
  const res = await api<{ usable: boolean; message: string | null }>('POST', `/images/${artifact}/check`, JSON.stringify(body), 'application/json');
  return res.ok ? res.data : null;
}

/** The region found the photo unusable: the retake comes first, in plain words; using it anyway goes on. */
function askRetake(message: string): void {
  state.checkedUnusable = true;
  const actions = acceptButton.parentElement!;
  acceptButton.disabled = false;
  retakeButton.disabled = false;
  acceptButton.textContent = 'Use this photo anyway';
  acceptButton.className = 'secondary';
  retakeButton.className = 'primary';
  actions.insertBefore(retakeButton, acceptButton);
  reviewFeedback.classList.add('is-warning');
  reviewFeedback.classList.remove('is-error');
  reviewFeedback.textContent = message;
  announce(message);
  retakeButton.focus();
}

async function accept(): Promise<void> {
  const shot = state.shot;
  if (!shot || state.busy) return;
  if (state.checkedUnusable) {
    // already stored; the applicant chose to use it as it is
    state.checkedUnusable = false;
    URL.revokeObjectURL(shot.url);
    state.shot = null;
    next();
    return;
  }
  state.busy = true;
  acceptButton.disabled = true;
  retakeButton.disabled = true;
  const label = acceptButton.textContent;
  acceptButton.textContent = 'Sending…';
  announce('Sending your photo…');
  const artifact = ARTIFACT_OF[shot.step];
  const res = await api('PUT', `/images/${artifact}`, shot.blob, 'image/jpeg');
  if (res.ok) {
    state.uploaded[artifact] = true;
    if (shot.source === 'upload') state.usedUpload = true;
    saveProgress();
    acceptButton.textContent = 'Checking…';
    announce('Checking your photo…');
    const checked = await serverCheck(artifact);
    state.busy = false;
    if (checked && !checked.usable) {
      askRetake(checked.message ?? 'We could not use this photo. Please take it again.');
      return;
    }
    URL.revokeObjectURL(shot.url);
    state.shot = null;
    announce('Photo sent.');
    next();
    return;
  }
  state.busy = false;
  const refusal = describeRefusal(res.status, res.code, res.param);
  if (refusal.kind === 'link') {
    showLink(refusal.link);
    return;
  }
  acceptButton.disabled = false;
  retakeButton.disabled = false;
  acceptButton.textContent = label === 'Use this photo anyway' ? label : 'Try again';
  showFeedback(reviewFeedback, refusal.message, true);
  acceptButton.focus();
}

function retake(): void {
  const shot = state.shot;
  if (!shot) return;
  if (shot.source === 'upload') {
    fileInput.value = '';
    fileInput.click();
    return;
  }
  openStep(shot.step);
}

async function submit(): Promise<void> {
  const c = state.capture!;
  if (state.busy) return;
  state.busy = true;
  submitButton.disabled = true;
  submitButton.textContent = 'Sending…';
  notice(submitProblem, null);
  announce('Sending your photos…');
  const body: { acquisition: 'camera' | 'upload'; signals?: AnalysisModule.CaptureSignals } = {
    acquisition: state.usedUpload && c.photo_upload ? 'upload' : 'camera',
  };
  if (c.device_intelligence) body.signals = collectSignals(deviceFacts(), pasteCount, clock.seconds(performance.now()));
  const res = await api('POST', '/submit', JSON.stringify(body), 'application/json');
  state.busy = false;
  submitButton.disabled = false;
  submitButton.textContent = 'Send my photos';
  if (res.ok) {
    forgetProgress();
    show('done');
    // the status region said "sending": it now says they went
    announce('Your photos were sent. You can close this page.');
    return;
  }
  const refusal = describeRefusal(res.status, res.code, res.param);
  if (refusal.kind === 'link') showLink(refusal.link);
  else if (refusal.kind === 'missing') {
    state.uploaded[refusal.artifact] = false;
    const step = (Object.keys(ARTIFACT_OF) as CaptureStep[]).find((s) => ARTIFACT_OF[s] === refusal.artifact)!;
    openStep(step, refusal.message);
  } else {
    notice(submitProblem, refusal.message);
    submitButton.textContent = 'Try again';
    submitButton.focus();
  }
}

function deviceFacts(): AnalysisModule.DeviceFacts {
  const nav = navigator as Navigator & { userAgentData?: { mobile?: boolean } };
  let timeZone: string | undefined;
  try {
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    timeZone = undefined;
  }
  return {
    userAgent: nav.userAgent,
    webdriver: nav.webdriver,
    maxTouchPoints: nav.maxTouchPoints,
    uaMobile: nav.userAgentData?.mobile,
    plugins: nav.plugins?.length,
    languages: nav.languages?.length,
    outerWidth: window.outerWidth,
    hasChromeObject: 'chrome' in window,
    timeZone,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The liveness challenge

function openChallenge(message: string | null = null): void {
  state.step = 'challenge';
  challengePrompt.hidden = true;
  challengeStart.hidden = false;
  challengeStart.disabled = false;
  challengeStart.textContent = message ? 'Try again' : 'Start';
  notice(challengeProblem, message);
  show('challenge');
}

const sleepUntil = (t: number) => new Promise<void>((r) => window.setTimeout(r, Math.max(0, t - performance.now())));

/** A frame of the challenge: the camera's picture as it is (not mirrored), at most 640 px a side, as JPEG. */
async function challengeFrame(): Promise<Blob> {
  const size = fitWithin(challengeVideo.videoWidth, challengeVideo.videoHeight, CHALLENGE_FRAME.maxSide);
  const { canvas, ctx } = canvasOf(size.width, size.height);
  ctx.drawImage(challengeVideo, 0, 0, size.width, size.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('encoding failed'))), 'image/jpeg', CHALLENGE_FRAME.quality));
}

/**
 * Runs the challenge: the front camera on, the prompts on their timeline from its first picture, a frame taken at
 * each of the schedule's times and sent at once (`PUT /v1/capture/challenge/frames/{index}`, with when it was
 * taken), then on to submit.
 */
async function runChallenge(): Promise<void> {
  const ch = state.capture?.challenge;
  if (!ch || state.busy) return;
  state.busy = true;
  challengeStart.disabled = true;
  challengeStart.hidden = true;
  notice(challengeProblem, null);
  stopCamera();
  const turn = cameraTurn;
  let s: MediaStream;
  try {
    s = await navigator.mediaDevices.getUserMedia({ audio: false, video: { facingMode: { ideal: 'user' }, width: { ideal: 1280 } } });
  } catch (e) {
    state.busy = false;
    openChallenge(cameraFailure((e as { name?: string }).name ?? ''));
    return;
  }
  if (turn !== cameraTurn) {
    for (const t of s.getTracks()) t.stop();
    state.busy = false;
    return;
  }
  stream = s;
  challengeVideo.srcObject = s;
  await challengeVideo.play().catch(() => undefined);
  if (challengeVideo.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) {
    await new Promise((r) => challengeVideo.addEventListener('loadeddata', r, { once: true }));
  }
  const plan = challengeSchedule(ch.steps);
  const t0 = performance.now();
  const events = [
    ...plan.prompts.map((p) => ({ at: p.atMs, run: () => {
      challengePrompt.hidden = false;
      challengePrompt.textContent = CHALLENGE_WORDS[p.prompt];
      announce(CHALLENGE_WORDS[p.prompt]);
    } })),
    ...plan.frames.map((f, i) => ({ at: f, frame: i })),
  ].sort((a, b) => a.at - b.at);
  const uploads: Promise<Awaited<ReturnType<typeof api>>>[] = [];
  let first: number | null = null;
  for (const e of events) {
    await sleepUntil(t0 + e.at);
    if (turn !== cameraTurn) {
      state.busy = false;
      return;
    }
    if ('run' in e) {
      e.run();
      continue;
    }
    const taken = performance.now();
    first ??= taken;
    const offset = Math.round(taken - first);
    uploads.push(challengeFrame().then((blob) => api('PUT', `/challenge/frames/${e.frame}?offset_ms=${offset}`, blob, 'image/jpeg')));
  }
  challengePrompt.textContent = 'Done. Sending…';
  stopCamera();
  const results = await Promise.all(uploads.map((u) => u.catch(() => ({ ok: false as const, status: 0, code: null, param: null }))));
  state.busy = false;
  const failed = results.find((r) => !r.ok);
  if (!failed || failed.ok) {
    state.challengeSent = true;
    announce('Thank you.');
    next();
    return;
  }
  const refusal = describeRefusal(failed.status, failed.code, failed.param);
  if (refusal.kind === 'link') showLink(refusal.link);
  else openChallenge(refusal.kind === 'retry' ? refusal.message : flow.MESSAGES.other);
}

// ---------------------------------------------------------------------------------------------------------------
// Skip

let skipReturn: ScreenId = 'consent';

function askSkip(): void {
  skipReturn = state.screen;
  notice(skipProblem, null);
  skipConfirm.disabled = false;
  show('skip');
}

function cancelSkip(): void {
  if (skipReturn === 'camera' && isPhotoStep(state.step)) openStep(state.step);
  else if (skipReturn === 'challenge') openChallenge();
  else show(skipReturn);
}

async function confirmSkip(): Promise<void> {
  const c = state.capture!;
  if (state.busy) return;
  state.busy = true;
  skipConfirm.disabled = true;
  const remaining = remainingScreens(c.steps, state.uploaded, state.documentType, challengePending());
  const step = skipStep(skipReturn === 'camera' || skipReturn === 'review' || skipReturn === 'challenge' ? state.step : null, remaining, c.steps);
  const res = await api('POST', '/skip', JSON.stringify({ step }), 'application/json');
  state.busy = false;
  skipConfirm.disabled = false;
  if (res.ok) {
    forgetProgress();
    show('skipped');
    return;
  }
  const refusal = describeRefusal(res.status, res.code, res.param);
  if (refusal.kind === 'link') showLink(refusal.link);
  else notice(skipProblem, refusal.kind === 'retry' ? refusal.message : flow.MESSAGES.other);
}

// ---------------------------------------------------------------------------------------------------------------
// The capture API

type ApiResult<T> = { ok: true; data: T } | { ok: false; status: number; code: string | null; param: string | null };

async function api<T = CaptureView>(method: string, path: string, body?: BodyInit, contentType?: string): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}`, accept: 'application/json' };
  if (contentType) headers['content-type'] = contentType;
  let res: Response;
  try {
    res = await fetch(`${apiBase}${path}`, { method, headers, body, cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer' });
  } catch {
    return { ok: false, status: 0, code: null, param: null };
  }
  let json: unknown = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  if (res.ok) return { ok: true, data: (json as { data: T } | null)?.data as T };
  const error = (json as { error?: { code?: unknown; param?: unknown } } | null)?.error;
  return {
    ok: false,
    status: res.status,
    code: typeof error?.code === 'string' ? error.code : null,
    param: typeof error?.param === 'string' ? error.param : null,
  };
}

async function load(): Promise<void> {
  show('loading');
  const res = await api('GET', '');
  if (!res.ok) {
    const refusal = describeRefusal(res.status, res.code, res.param);
    if (refusal.kind === 'link') showLink(refusal.link);
    else showProblem(refusal.kind === 'retry' ? refusal.message : flow.MESSAGES.other);
    return;
  }
  const c = res.data;
  state.capture = c;
  const open = captureState(c, Date.now());
  if (open !== 'open') {
    showLink(open);
    return;
  }
  for (const a of ['front', 'back', 'selfie'] as const) state.uploaded[a] = c.images?.[a] != null;
  loadProgress();
  const started = state.uploaded.front || state.uploaded.back || state.uploaded.selfie;
  el('consent-lead').textContent = started
    ? 'Welcome back. You can go on where you stopped.'
    : 'It takes about 3 minutes.';
  el('consent-button').textContent = started ? 'Continue' : 'I agree, start';
  el('consent-selfie').hidden = !c.steps.includes('selfie');
  show('consent');
}

// ---------------------------------------------------------------------------------------------------------------
// Wiring

document.addEventListener('click', (e) => {
  const target = (e.target as Element | null)?.closest<HTMLElement>('[data-action], [data-document]');
  if (!target || (target as HTMLButtonElement).disabled) return;
  const doc = target.dataset.document;
  if (doc) {
    state.documentType = doc as DocumentType;
    saveProgress();
    next();
    return;
  }
  switch (target.dataset.action) {
    case 'consent':
      next();
      break;
    case 'shoot':
      void shoot();
      break;
    case 'camera-retry':
      if (isPhotoStep(state.step)) {
        notice(cameraProblem, null);
        void startCamera(state.step);
      }
      break;
    case 'choose-file':
      fileInput.value = '';
      fileInput.click();
      break;
    case 'accept':
      void accept();
      break;
    case 'retake':
      retake();
      break;
    case 'submit':
      void submit();
      break;
    case 'challenge-start':
      void runChallenge();
      break;
    case 'skip':
      askSkip();
      break;
    case 'skip-cancel':
      cancelSkip();
      break;
    case 'skip-confirm':
      void confirmSkip();
      break;
    case 'reload':
      void load();
      break;
  }
});

fileInput.addEventListener('change', () => {
  const file = fileInput.files?.[0];
  if (file) void fromFile(file);
});

// a camera left running in a background tab helps no one; it starts again when the page is back
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') {
    if (stream) stopCamera();
    // a challenge cut short starts again from the beginning
    if (state.screen === 'challenge' && !state.challengeSent) {
      state.busy = false;
      openChallenge('The check stopped when you left the page. Please start it again.');
    }
  } else if (state.screen === 'camera' && isPhotoStep(state.step) && !stream) {
    void startCamera(state.step);
  }
});
window.addEventListener('pagehide', () => stopCamera());

void load();
