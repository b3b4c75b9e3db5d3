/**
 * A thread of the reading pool. Its engines (Tesseract with the OCR-B model for the MRZ and the English one for
 * the printed zone, OpenCV for the document's outline, and Human for faces) load once, at warm-up or on first
 * use, and stay for the thread's life; the faces engine only when a task needs faces (the ID scan never does).
 */
import sharp from 'sharp';
import type { Thresholds } from './checks.js';
import { readDocument, startReaders, type DocumentOutcome, type Readers } from './document.js';
import { FaceEngine } from './faces.js';
import { checkDocumentImage, checkSelfieImage, type DocumentKind, type ImageCheck } from './image-check.js';
import { installOfflineFetch } from './offline.js';
import { documentSide, selfieSide, type DocumentSide, type SelfieSide } from './verify.js';

installOfflineFetch();
// no operation cache (every image is new), and one libvips thread per operation: the pool's threads are the
// parallelism, and four reads at once on two cores must not fight over more
sharp.cache(false);
sharp.concurrency(1);

let readers: Promise<Readers> | null = null;
let faces: Promise<FaceEngine> | null = null;

const readingEngines = () => (readers ??= startReaders());
const faceEngine = () => (faces ??= FaceEngine.start());

export interface ReadTask {
  front: Uint8Array;
  back: Uint8Array | null;
  today: string;
}

/** The selfie's side of a live run (`selfieSide`). */
export interface SelfieTask {
  selfie: Uint8Array | null;
  frames: { image: Uint8Array; offsetMs: number }[];
}

export interface InspectTask {
  image: Uint8Array;
  /** `selfie`, or a side of the document. */
  artifact: 'front' | 'back' | 'selfie';
  documentKind: DocumentKind | null;
  thresholds: Thresholds;
  today: string;
}

const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export async function read(task: ReadTask): Promise<DocumentOutcome> {
  const { outcome } = await readDocument(await readingEngines(), { front: buf(task.front), back: task.back && buf(task.back) }, task.today);
  return outcome;
}

/** The document's side of a live run: read, its portrait zone's face and the portrait (`documentSide`). */
export async function documentPart(task: ReadTask): Promise<DocumentSide> {
  const [o, f] = await Promise.all([readingEngines(), faceEngine()]);
  return documentSide(o, f, { front: buf(task.front), back: task.back && buf(task.back) }, task.today);
}

export async function selfiePart(task: SelfieTask): Promise<SelfieSide> {
  return selfieSide(await faceEngine(), { selfie: task.selfie && buf(task.selfie), frames: task.frames.map((fr) => ({ image: buf(fr.image), offsetMs: fr.offsetMs })) });
}

export async function inspect(task: InspectTask): Promise<ImageCheck> {
  if (task.artifact === 'selfie') return checkSelfieImage(await faceEngine(), buf(task.image), task.thresholds);
  const [o, f] = await Promise.all([readingEngines(), faceEngine()]);
  return checkDocumentImage(o, f, buf(task.image), task.artifact, task.documentKind, task.thresholds, task.today);
}

/** Loads the engines a thread will need, so that its first task does not wait for them. */
export async function warm(task: { faces: boolean }): Promise<void> {
  await Promise.all([readingEngines(), task.faces ? faceEngine() : null]);
}
