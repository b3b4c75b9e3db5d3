/**
 * A thread of the reading bench that renders specimens and photographs them (`photograph` is plain JavaScript,
 * slow at 12 MP): one per core, so that the photos are ready sooner, and none of their work runs on the thread
 * that later samples the pool's memory.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { photograph, renderSpecimen, type PhotoOptions, type Specimen } from '@verity/specimens';

export interface PhotoJob {
  index: number;
  specimen: Specimen;
  photo: PhotoOptions;
}

export interface PhotoDone {
  index: number;
  front: Uint8Array;
  back: Uint8Array | null;
}

for (const job of workerData as PhotoJob[]) {
  const r = await renderSpecimen(job.specimen);
  const front = await photograph(r.front, job.photo);
  // the back with the next seed, as the matrix prescribes
  const back = r.back ? await photograph(r.back, { ...job.photo, seed: (job.photo.seed ?? 1) + 1 }) : null;
  const done: PhotoDone = { index: job.index, front, back };
  parentPort!.postMessage(done);
}
