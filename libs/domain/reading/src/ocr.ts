import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Tesseract from 'tesseract.js';
import type { Word } from './printed.js';

const require = createRequire(import.meta.url);

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

/**
 * Reads a document's printed (visual) zone: Tesseract with the English LSTM model of `@tesseract.js-data/eng`
 * (`4.0.0_best_int`, 3 MB: it reads labels and values in the fonts documents print, where the legacy model garbles
 * more), sparse text (fields are scattered, not paragraphs), words with their boxes. Loaded from disk; nothing is
 * fetched or cached.
 */
export class PrintedOcr {
  private constructor(private readonly worker: Tesseract.Worker) {}

  static async start(): Promise<PrintedOcr> {
    const langPath = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
    const worker = await Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' });
    await worker.setParameters({ tessedit_pageseg_mode: Tesseract.PSM.SPARSE_TEXT, debug_file: '/dev/null' });
    return new PrintedOcr(worker);
  }

  /** The words in an image (PNG or JPEG bytes), with their boxes in its pixels. */
  async words(image: Buffer): Promise<Word[]> {
    const { data } = await this.worker.recognize(image, {}, { blocks: true, text: false });
    const words: Word[] = [];
    for (const b of data.blocks ?? [])
      for (const p of b.paragraphs)
        for (const l of p.lines)
          for (const w of l.words) {
            if (w.text.trim()) words.push({ text: w.text, left: w.bbox.x0, top: w.bbox.y0, width: w.bbox.x1 - w.bbox.x0, height: w.bbox.y1 - w.bbox.y0 });
          }
    return words;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
