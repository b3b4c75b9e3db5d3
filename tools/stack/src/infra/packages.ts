import { spawnSync } from 'node:child_process';

/** A program the local infrastructure or the tests run, and the Debian package that provides it. */
export interface Needed {
  /** How to tell it is there: a command on the PATH, or a test of our own. */
  present: () => boolean;
  /** What it is, for the messages. */
  what: string;
  /** The Debian package(s). */
  packages: string[];
}

export function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** The one command that installs `packages` (what a user without root is told to run). */
export function installCommand(packages: string[]): string {
  return `sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

/**
 * Makes sure every needed program is there. What is missing is installed with apt-get when this process is root,
 * after saying so on `say`; otherwise this throws with the one command that installs it. Nothing else of the
 * system is read or changed.
 */
export function ensureInstalled(needed: Needed[], say: (line: string) => void): void {
  const missing = needed.filter((n) => !n.present());
  if (missing.length === 0) return;
  const packages = [...new Set(missing.flatMap((m) => m.packages))];
  const what = missing.map((m) => m.what).join(', ');
  if (!isRoot() || !onPath('apt-get')) {
    throw new Error(`${what} ${missing.length === 1 ? 'is' : 'are'} not installed. Install with: ${installCommand(packages)}`);
  }
  say(`${what} ${missing.length === 1 ? 'is' : 'are'} missing: installing ${packages.join(' ')} with apt-get (once)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: ['ignore', 'ignore', 'inherit'], env });
  // a machine that never ran `apt-get update` has no package lists to install from
  if (install().status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (install().status !== 0) throw new Error(`apt-get could not install ${packages.join(' ')}`);
  }
  const still = missing.filter((m) => !m.present());
  if (still.length) throw new Error(`${still.map((m) => m.what).join(', ')} still missing after installing ${packages.join(' ')}`);
}
