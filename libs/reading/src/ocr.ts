import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Tesseract from 'tesseract.js';

/** The characters of a machine-readable zone: nothing else is ever read there. */
const MRZ_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';
/** Init-only settings: no dictionaries (an MRZ is not words). */
const NO_DICTIONARIES = { load_system_dawg: '0', load_freq_dawg: '0', load_unambig_dawg: '0', load_punc_dawg: '0', load_number_dawg: '0', load_bigram_dawg: '0' };

/**
 * Where `ocrb.traineddata` is: a Tesseract legacy-engine model of the OCR-B font for the MRZ alphabet, trained in
 * this repository (`training/train-ocrb.sh`) from Debian's public-domain OCR-B font.
 */
export function ocrbDataPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../assets');
}

/**
 * Reads MRZ text: Tesseract (WebAssembly from the installed `tesseract.js-core`, in a thread of its own) with the
 * OCR-B model, the legacy engine, the MRZ alphabet only, no dictionaries, a block of lines at a time. Everything
 * is loaded from disk; nothing is fetched or cached.
 */
export class MrzOcr {
  private constructor(private readonly worker: Tesseract.Worker) {}

  static async start(): Promise<MrzOcr> {
    const worker = await Tesseract.createWorker('ocrb', Tesseract.OEM.TESSERACT_ONLY, { langPath: ocrbDataPath(), gzip: false, cacheMethod: 'none' }, NO_DICTIONARIES);
    await worker.setParameters({ tessedit_pageseg_mode: Tesseract.PSM.SINGLE_BLOCK, tessedit_char_whitelist: MRZ_ALPHABET, debug_file: '/dev/null' });
    return new MrzOcr(worker);
  }

  /** The lines of text in an image of a zone (PNG or JPEG bytes), spaces removed. */
  async lines(image: Buffer): Promise<string[]> {
    const { data } = await this.worker.recognize(image);
    return data.text
      .split('\n')
      .map((l) => l.replace(/\s+/g, ''))
      .filter((l) => l.length > 0);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
