/**
 * A thread of the reading pool. Its engines (Tesseract's two, and Human for faces) load once, on first use, and
 * stay for the thread's life; the faces engine only when a task needs faces (the ID scan never does).
 */
import sharp from 'sharp';
import type { Thresholds } from './checks.js';
import { readDocument, type DocumentOutcome } from './document.js';
import { FaceEngine } from './faces.js';
import { MrzOcr } from './ocr.js';
import { installOfflineFetch } from './offline.js';
import { verify, type Verification } from './verify.js';

installOfflineFetch();
// no operation cache (every image is new), and one libvips thread per operation: the pool's threads are the
// parallelism, and four reads at once on two cores must not fight over more
sharp.cache(false);
sharp.concurrency(1);

let ocr: Promise<MrzOcr> | null = null;
let faces: Promise<FaceEngine> | null = null;

const ocrEngine = () => (ocr ??= MrzOcr.start());
const faceEngine = () => (faces ??= FaceEngine.start());

export interface ReadTask {
  front: Uint8Array;
  back: Uint8Array | null;
  today: string;
}

export interface VerifyTask extends ReadTask {
  selfie: Uint8Array | null;
  thresholds: Thresholds;
}

const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export async function read(task: ReadTask): Promise<DocumentOutcome> {
  const { outcome } = await readDocument(await ocrEngine(), { front: buf(task.front), back: task.back && buf(task.back) }, task.today);
  return outcome;
}

export async function check(task: VerifyTask): Promise<Verification> {
  const [o, f] = await Promise.all([ocrEngine(), faceEngine()]);
  return verify(o, f, { front: buf(task.front), back: task.back && buf(task.back), selfie: task.selfie && buf(task.selfie) }, task.thresholds, task.today);
}

/** Loads the engines a thread will need, so that its first task does not wait for them. */
export async function warm(task: { faces: boolean }): Promise<void> {
  await Promise.all([ocrEngine(), task.faces ? faceEngine() : null]);
}
