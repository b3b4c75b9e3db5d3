/**
 * Field resolution: from an evaluation context to the value a condition compares. `undefined`
 * means "resolved to nothing". Resolvers never throw on missing or malformed context members and
 * never return `null` (a null is nothing).
 *
 * Conventions:
 * - an empty string of the applicant (other than `applicant.legalName`, see below) is nothing;
 * - an empty array (no given names, no defined finding values, an empty metadata array) is nothing;
 * - device and network signals resolve only when their type matches the catalogue.
 */
import { FINDING_TOP_LEVEL, type FieldRef } from './fields.js';
import type { CompileOptions, EvaluationContext } from './types.js';

export type Resolver = (ctx: EvaluationContext) => unknown;

/** A field resolves per evaluation (`fn`), to a value fixed at compile time (`const`), or fails the run. */
export type FieldSource =
  | { kind: 'fn'; fn: Resolver }
  | { kind: 'const'; value: unknown }
  | { kind: 'error'; key: string };

type Rec = Record<string, unknown>;

function rec(v: unknown): Rec | undefined {
  return typeof v === 'object' && v !== null ? (v as Rec) : undefined;
}

/** Own property only: caller-chosen keys (`toString`, `__proto__`) never reach the prototype. */
function own(o: Rec | undefined, key: string): unknown {
  return o !== undefined && Object.hasOwn(o, key) ? o[key] : undefined;
}

/**
 * A reader of one member by a key fixed at compile time. Keys that no plain object inherits are
 * read directly (the hot path); the others (`constructor`, `toString`, `__proto__`...) only as
 * own properties.
 */
function memberReader(key: string): (o: Rec | undefined) => unknown {
  if (key in Object.prototype) return (o) => own(o, key);
  return (o) => (o === undefined ? undefined : o[key]);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

const NO_FINDINGS: readonly unknown[] = Object.freeze([]);

function applicantOf(ctx: EvaluationContext): Rec | undefined {
  return rec(ctx.applicant);
}

function findingsOf(ctx: EvaluationContext): readonly unknown[] {
  const f = ctx.findings;
  return Array.isArray(f) ? f : NO_FINDINGS;
}

export function givenNamesOf(a: Rec | undefined): string[] | undefined {
  const g = a?.givenNames;
  if (!Array.isArray(g) || g.length === 0) return undefined;
  for (let i = 0; i < g.length; i++) {
    const s: unknown = g[i];
    if (typeof s !== 'string' || s === '') {
      const clean = g.filter((e: unknown): e is string => typeof e === 'string' && e !== '');
      return clean.length > 0 ? clean : undefined;
    }
  }
  return g as string[];
}

/** `applicant.name`: the legal name when present, otherwise given names then family name. */
export function applicantName(a: Rec | undefined): string | undefined {
  const legal = str(a?.legalName);
  if (legal !== undefined) return legal;
  const given = givenNamesOf(a);
  const family = str(a?.familyName);
  if (given === undefined) return family;
  return family === undefined ? given.join(' ') : `${given.join(' ')} ${family}`;
}

/**
 * `applicant.legalName`: verbatim when captured; the empty string when the name arrived as
 * components (docs/screening.md, "Applicant"); nothing without any name.
 */
export function applicantLegalName(a: Rec | undefined): string | undefined {
  const legal = str(a?.legalName);
  if (legal !== undefined) return legal;
  return str(a?.familyName) !== undefined || givenNamesOf(a) !== undefined ? '' : undefined;
}

/** `applicant.email.domain`: the part after the last `@`, lowercased; nothing without one. */
export function emailDomain(email: unknown): string | undefined {
  if (typeof email !== 'string') return undefined;
  const at = email.lastIndexOf('@');
  if (at < 0 || at === email.length - 1) return undefined;
  return email.slice(at + 1).toLowerCase();
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1] ?? 0;
}

/** Digits of `s` from `from` to `to` as a number, or -1 when any is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** `YYYY-MM-DD` as year * 10000 + month * 100 + day, or -1 when malformed or not a calendar date. */
export function parseDate(s: string): number {
  if (s.length !== 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return -1;
  const y = digits(s, 0, 4);
  const m = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  if (y < 0 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return -1;
  return y * 10000 + m * 100 + d;
}

/** The UTC calendar date of an instant as year * 10000 + month * 100 + day, or -1. */
function utcDate(now: unknown): number {
  const at = now instanceof Date ? now : typeof now === 'string' || typeof now === 'number' ? new Date(now) : undefined;
  if (at === undefined) return -1;
  const t = at.getTime();
  if (!Number.isFinite(t)) return -1;
  return at.getUTCFullYear() * 10000 + (at.getUTCMonth() + 1) * 100 + at.getUTCDate();
}

/**
 * `applicant.age`: whole years between a `YYYY-MM-DD` date of birth and the UTC calendar date
 * of `now`. A 29 February birthday is reached on 1 March in common years. Nothing for an
 * invalid date, an invalid `now`, or a birth date after `now`.
 */
export function ageAt(dob: unknown, now: unknown): number | undefined {
  if (typeof dob !== 'string') return undefined;
  const born = parseDate(dob);
  if (born < 0) return undefined;
  const today = utcDate(now);
  if (today < 0 || today < born) return undefined;
  // Comparing YYYYMMDD numbers: the year difference, less one before this year's birthday.
  return Math.floor((today - born) / 10000);
}

function applicantResolver(key: Extract<FieldRef, { kind: 'applicant' }>['key']): Resolver {
  switch (key) {
    case 'legalName':
      return (ctx) => applicantLegalName(applicantOf(ctx));
    case 'name':
      return (ctx) => applicantName(applicantOf(ctx));
    case 'familyName':
      return (ctx) => str(applicantOf(ctx)?.familyName);
    case 'givenNames':
      return (ctx) => givenNamesOf(applicantOf(ctx));
    case 'email':
      return (ctx) => str(applicantOf(ctx)?.email);
    case 'emailDomain':
      return (ctx) => emailDomain(applicantOf(ctx)?.email);
    case 'dateOfBirth':
      return (ctx) => str(applicantOf(ctx)?.dateOfBirth);
    case 'age':
      return (ctx) => ageAt(applicantOf(ctx)?.dateOfBirth, ctx.now);
    case 'country':
      return (ctx) => str(rec(applicantOf(ctx)?.address)?.country);
    case 'phone':
      return (ctx) => str(applicantOf(ctx)?.phone);
  }
}

function documentResolver(key: Extract<FieldRef, { kind: 'document' }>['key']): Resolver {
  const doc = (ctx: EvaluationContext) => rec(ctx.document);
  switch (key) {
    case 'givenNames':
      return (ctx) => givenNamesOf(doc(ctx));
    case 'age':
      return (ctx) => ageAt(doc(ctx)?.dateOfBirth, ctx.now);
    case 'applicantMatch':
      return (ctx) => typed(doc(ctx)?.applicantMatch, 'boolean');
    default: {
      const read = memberReader(key);
      return (ctx) => str(read(doc(ctx)));
    }
  }
}

function findingCountResolver(severity: 'high' | 'medium' | 'low' | undefined): Resolver {
  return (ctx) => {
    const fs = findingsOf(ctx);
    let n = 0;
    for (let i = 0; i < fs.length; i++) {
      const f = rec(fs[i]);
      if (f !== undefined && (severity === undefined || f.severity === severity)) n++;
    }
    return n;
  };
}

const TOP_LEVEL: ReadonlySet<string> = new Set(FINDING_TOP_LEVEL);

/** A finding's `<field>`: a top-level member when it names one, otherwise an evidence key. */
function findingReader(field: string): (f: Rec) => unknown {
  if (TOP_LEVEL.has(field)) {
    return (f) => {
      const v = f[field];
      return v === null ? undefined : v;
    };
  }
  const read = memberReader(field);
  return (f) => {
    const v = read(rec(f.evidence));
    return v === null ? undefined : v;
  };
}

function findingResolver(ref: Extract<FieldRef, { kind: 'findingAny' | 'findingAll' | 'findingCountWhere' }>): Resolver {
  const { subjectType } = ref;
  const value = findingReader(ref.field);
  switch (ref.kind) {
    case 'findingAny':
      return (ctx) => {
        const fs = findingsOf(ctx);
        for (let i = 0; i < fs.length; i++) {
          const f = rec(fs[i]);
          if (f === undefined || f.subjectType !== subjectType) continue;
          const v = value(f);
          if (v !== undefined) return v;
        }
        return undefined;
      };
    case 'findingAll':
      return (ctx) => {
        const fs = findingsOf(ctx);
        let out: unknown[] | undefined;
        for (let i = 0; i < fs.length; i++) {
          const f = rec(fs[i]);
          if (f === undefined || f.subjectType !== subjectType) continue;
          const v = value(f);
          if (v !== undefined) (out ??= []).push(v);
        }
        return out;
      };
    case 'findingCountWhere':
      return (ctx) => {
        const fs = findingsOf(ctx);
        let n = 0;
        for (let i = 0; i < fs.length; i++) {
          const f = rec(fs[i]);
          if (f !== undefined && f.subjectType === subjectType && value(f)) n++;
        }
        return n;
      };
  }
}

function typed(v: unknown, type: 'string' | 'number' | 'boolean'): unknown {
  if (typeof v !== type) return undefined;
  if (type === 'number' && !Number.isFinite(v)) return undefined;
  if (type === 'string' && v === '') return undefined;
  return v;
}

/**
 * The value of `session.metadata.<key>` in the template metadata, checked once at compile time:
 * strings, finite numbers, booleans, arrays of strings or of finite numbers. Missing or `null`
 * is nothing; an empty array is nothing; anything else (an object, a mixed array) is an error.
 */
export function metadataSource(metadata: unknown, key: string): FieldSource {
  const v = own(rec(metadata), key);
  if (v === undefined || v === null) return { kind: 'const', value: undefined };
  if (typeof v === 'string' || typeof v === 'boolean') return { kind: 'const', value: v };
  if (typeof v === 'number') return Number.isFinite(v) ? { kind: 'const', value: v } : { kind: 'error', key };
  if (!Array.isArray(v)) return { kind: 'error', key };
  let strings = true;
  let numbers = true;
  for (let i = 0; i < v.length; i++) {
    const e: unknown = v[i];
    if (typeof e !== 'string') strings = false;
    if (typeof e !== 'number' || !Number.isFinite(e)) numbers = false;
  }
  if (!strings && !numbers) return { kind: 'error', key };
  return { kind: 'const', value: v.length === 0 ? undefined : Object.freeze(v.slice()) };
}

/** How one field resolves under the given compile options. */
export function fieldSource(ref: FieldRef, opts: Pick<CompileOptions, 'deviceIntelligence' | 'templateMetadata'>): FieldSource {
  switch (ref.kind) {
    case 'applicant':
      return { kind: 'fn', fn: applicantResolver(ref.key) };
    case 'document':
      return { kind: 'fn', fn: documentResolver(ref.key) };
    case 'watchlist': {
      const read = memberReader(ref.key);
      return { kind: 'fn', fn: (ctx) => typed(read(rec(ctx.watchlist)), 'number') };
    }
    case 'findingCount':
      return { kind: 'fn', fn: findingCountResolver(ref.severity) };
    case 'fraud': {
      if (!opts.deviceIntelligence) return { kind: 'const', value: undefined };
      const { type } = ref;
      const read = memberReader(ref.key);
      return { kind: 'fn', fn: (ctx) => typed(read(rec(ctx.fraud)), type) };
    }
    case 'device': {
      if (!opts.deviceIntelligence) return { kind: 'const', value: undefined };
      const { type } = ref;
      const readGroup = memberReader(ref.group);
      const read = memberReader(ref.key);
      return { kind: 'fn', fn: (ctx) => typed(read(rec(readGroup(rec(ctx.device)))), type) };
    }
    case 'check': {
      const read = memberReader(ref.checkType);
      return { kind: 'fn', fn: (ctx) => str(read(rec(ctx.checks))) };
    }
    case 'findingAny':
    case 'findingAll':
    case 'findingCountWhere':
      return { kind: 'fn', fn: findingResolver(ref) };
    case 'metadata':
      return metadataSource(opts.templateMetadata, ref.key);
  }
}
