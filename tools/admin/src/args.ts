/** Flags that take no value: present or not (`'true'` when present). */
const SWITCHES = new Set(['--help', '--password-stdin']);

/**
 * Parses `<resource> <action> --name value …` into words and flags; a flag without a value is an error, except
 * the switches.
 */
export interface ParsedArgs {
  words: string[];
  flags: Record<string, string>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[]): ParsedArgs {
  const words: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 2) {
        flags[a.slice(2, eq)] = a.slice(eq + 1);
        continue;
      }
      const v = argv[i + 1];
      if (SWITCHES.has(a)) {
        flags[a.slice(2)] = 'true';
        continue;
      }
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      flags[a.slice(2)] = v;
      i++;
    } else {
      words.push(a);
    }
  }
  return { words, flags };
}

export function required(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function parseBool(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new UsageError(`--${name} must be true or false`);
}
