/**
 * The `signals` of `POST /v1/capture/submit` (docs/capture.md, "Submit"): what the capture page measured in the
 * applicant's browser. Validated by hand rather than with zod so that every issue is reported at once with a path
 * under `signals` and a zod-like code, and so that no value ever reaches a message.
 */
import { DomainError, type Issue } from '@verity/errors';

export const FORM_FACTORS = ['mobile', 'tablet', 'desktop'] as const;
export type FormFactor = (typeof FORM_FACTORS)[number];

/** Limits of the `signals` object. */
export const SIGNAL_LIMITS = {
  /** Most step names in `step_seconds`. */
  maxSteps: 20,
  /** Longest step name and longest time zone name, in UTF-16 code units. */
  maxStringLength: 64,
} as const;

/** The keys of `signals` the region reads; any other key is ignored. */
export const SIGNAL_KEYS = ['paste_count', 'step_seconds', 'webdriver', 'headless', 'touch_points', 'form_factor', 'time_zone'] as const;

/** What the page measured, validated. A member is present exactly when the page sent it. */
export interface Signals {
  /**
   * True when no measurement arrived: `signals` was left out, or it held none of the known keys. Evidence is
   * absent; that is not a bad signal.
   */
  absent: boolean;
  pasteCount?: number;
  /** Step name → seconds spent on it (finite, ≥ 0). A null-prototype object: step names are caller text. */
  stepSeconds?: Readonly<Record<string, number>>;
  webdriver?: boolean;
  headless?: boolean;
  touchPoints?: number;
  formFactor?: FormFactor;
  /** The IANA name as the runtime's `Intl` resolves it (canonical case, e.g. `Europe/Paris`). */
  timeZone?: string;
}

/** The result for a submit that carried no `signals`. */
export const ABSENT_SIGNALS: Readonly<Signals> = Object.freeze({ absent: true });

type Rec = Record<string, unknown>;

function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: Rec, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  return typeof v;
}

/** The runtime's canonical name of an IANA time zone, or undefined when `Intl` does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  // Offsets (`+01:00`) are accepted by newer runtimes but are not IANA names.
  if (!/^[A-Za-z]/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

class Checker {
  readonly issues: Issue[] = [];

  add(code: string, message: string, path: (string | number)[]): void {
    this.issues.push({ code, message, path: ['signals', ...path] });
  }

  count(v: unknown, key: string): number | undefined {
    if (typeof v !== 'number' || Number.isNaN(v)) {
      this.add('invalid_type', `Expected a non-negative integer, received ${typeName(v)}.`, [key]);
      return undefined;
    }
    if (!Number.isFinite(v) || !Number.isInteger(v)) {
      this.add('invalid_type', 'Expected an integer.', [key]);
      return undefined;
    }
    if (v < 0) {
      this.add('too_small', 'Must be at least 0.', [key]);
      return undefined;
    }
    if (!Number.isSafeInteger(v)) {
      this.add('too_big', `Must be at most ${Number.MAX_SAFE_INTEGER}.`, [key]);
      return undefined;
    }
    return v;
  }

  bool(v: unknown, key: string): boolean | undefined {
    if (typeof v === 'boolean') return v;
    this.add('invalid_type', `Expected a boolean, received ${typeName(v)}.`, [key]);
    return undefined;
  }

  stepSeconds(v: unknown): Record<string, number> | undefined {
    const key = 'step_seconds';
    if (!isRecord(v)) {
      this.add('invalid_type', `Expected an object of step name to seconds, received ${typeName(v)}.`, [key]);
      return undefined;
    }
    const names = Object.keys(v);
    if (names.length > SIGNAL_LIMITS.maxSteps) {
      this.add('too_big', `At most ${SIGNAL_LIMITS.maxSteps} steps.`, [key]);
      return undefined;
    }
    const out: Record<string, number> = Object.create(null) as Record<string, number>;
    let ok = true;
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (name.length === 0) {
        this.add('too_small', 'A step name must not be empty.', [key, name]);
        ok = false;
        continue;
      }
      if (name.length > SIGNAL_LIMITS.maxStringLength) {
        // The name itself is caller text of any length: the path names the step by its position only.
        this.add('too_big', `A step name is at most ${SIGNAL_LIMITS.maxStringLength} characters.`, [key, i]);
        ok = false;
        continue;
      }
      const s = v[name];
      if (typeof s !== 'number' || Number.isNaN(s)) {
        this.add('invalid_type', `Expected a number of seconds, received ${typeName(s)}.`, [key, name]);
        ok = false;
      } else if (!Number.isFinite(s)) {
        this.add('invalid_type', 'Expected a finite number of seconds.', [key, name]);
        ok = false;
      } else if (s < 0) {
        this.add('too_small', 'Must be at least 0.', [key, name]);
        ok = false;
      } else {
        out[name] = s === 0 ? 0 : s; // -0 reads as 0
      }
    }
    return ok ? Object.freeze(out) : undefined;
  }

  formFactor(v: unknown): FormFactor | undefined {
    if (typeof v !== 'string') {
      this.add('invalid_type', `Expected one of ${FORM_FACTORS.join(', ')}, received ${typeName(v)}.`, ['form_factor']);
      return undefined;
    }
    if (!(FORM_FACTORS as readonly string[]).includes(v)) {
      this.add('invalid_value', `Expected one of ${FORM_FACTORS.join(', ')}.`, ['form_factor']);
      return undefined;
    }
    return v as FormFactor;
  }

  timeZone(v: unknown): string | undefined {
    const key = 'time_zone';
    if (typeof v !== 'string') {
      this.add('invalid_type', `Expected an IANA time zone name, received ${typeName(v)}.`, [key]);
      return undefined;
    }
    if (v.length === 0) {
      this.add('too_small', 'Must not be empty.', [key]);
      return undefined;
    }
    if (v.length > SIGNAL_LIMITS.maxStringLength) {
      this.add('too_big', `At most ${SIGNAL_LIMITS.maxStringLength} characters.`, [key]);
      return undefined;
    }
    const canonical = canonicalTimeZone(v);
    if (canonical === undefined) {
      this.add('invalid_value', 'Not a known IANA time zone.', [key]);
      return undefined;
    }
    return canonical;
  }
}

/**
 * Validates the `signals` member of a submit body (pass `body.signals`, not the whole body).
 *
 * - `undefined` (left out) → `{ absent: true }`.
 * - Anything but a plain object (`null` included) → `validation_error` at `["signals"]`.
 * - Unknown keys are ignored; a known key of the wrong type or out of range is refused. Every problem is reported
 *   in `details.issues`, each with `path` `["signals", <key>, …]`; `param` is `signals`.
 * - An object with none of the known keys is `absent` too: no measurement arrived.
 */
export function parseSignals(signals: unknown): Signals {
  if (signals === undefined) return { absent: true };
  if (!isRecord(signals)) {
    throw DomainError.validation([{ code: 'invalid_type', message: `Expected an object, received ${typeName(signals)}.`, path: ['signals'] }]);
  }
  const c = new Checker();
  const out: Signals = { absent: true };
  let seen = false;
  const read = (key: (typeof SIGNAL_KEYS)[number]): unknown => {
    const v = own(signals, key);
    if (v !== undefined) seen = true;
    return v;
  };

  const paste = read('paste_count');
  if (paste !== undefined) out.pasteCount = c.count(paste, 'paste_count');
  const steps = read('step_seconds');
  if (steps !== undefined) out.stepSeconds = c.stepSeconds(steps);
  const webdriver = read('webdriver');
  if (webdriver !== undefined) out.webdriver = c.bool(webdriver, 'webdriver');
  const headless = read('headless');
  if (headless !== undefined) out.headless = c.bool(headless, 'headless');
  const touch = read('touch_points');
  if (touch !== undefined) out.touchPoints = c.count(touch, 'touch_points');
  const form = read('form_factor');
  if (form !== undefined) out.formFactor = c.formFactor(form);
  const tz = read('time_zone');
  if (tz !== undefined) out.timeZone = c.timeZone(tz);

  if (c.issues.length > 0) throw DomainError.validation(c.issues);
  out.absent = !seen;
  return out;
}
