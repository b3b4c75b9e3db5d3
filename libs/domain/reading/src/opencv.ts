import { createRequire } from 'node:module';
import type * as OpenCv from '@techstark/opencv-js';

const require = createRequire(import.meta.url);

/** OpenCV's JavaScript API, as `@techstark/opencv-js` types it. */
export type Cv = typeof OpenCv;

let loading: Promise<{ cv: Cv }> | null = null;

/**
 * OpenCV (4.12, compiled to WebAssembly by `@techstark/opencv-js`), once per thread. Its WebAssembly is inside
 * the package's JavaScript file, so nothing is fetched; instantiating it takes about 0.4 s and 90 MB, which a
 * reading thread pays at warm-up. The module is handed out inside an object: it is a "thenable" (it has a
 * `then`), which a promise would try to adopt, and never settle.
 */
export function openCv(): Promise<{ cv: Cv }> {
  loading ??= new Promise((resolve) => {
    const cv = require('@techstark/opencv-js') as Cv;
    const module = cv as unknown as { Mat?: unknown; onRuntimeInitialized?: () => void };
    if (module.Mat) resolve({ cv });
    else module.onRuntimeInitialized = () => resolve({ cv });
  });
  return loading;
}
