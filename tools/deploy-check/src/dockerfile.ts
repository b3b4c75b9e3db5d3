/**
 * A lint of docker/Dockerfile in the spirit of hadolint (which is neither on npm nor in Debian here), limited to the
 * house rules: base images pinned by a tag naming at least a minor version (or a digest), never `latest`; every
 * stage that runs something (CMD/ENTRYPOINT, own or inherited) ends as a numeric non-root USER; apt-get install
 * with --no-install-recommends and the lists removed in the same RUN; COPY, not ADD. And the build context as
 * .dockerignore leaves it.
 */
import dockerignoreModule from '@balena/dockerignore';

// a CommonJS module exporting the factory itself, which its types declare as a default export
const dockerignore = dockerignoreModule as unknown as typeof dockerignoreModule.default;

interface Instruction {
  line: number;
  op: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  parent?: Stage;
  user?: string;
  runs: boolean;
  copies: string[];
}

/** The instructions of a Dockerfile, continuation lines joined, comments dropped. */
export function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let l = lines[i]!.trim();
    if (!l || l.startsWith('#')) continue;
    while (l.endsWith('\\') && i + 1 < lines.length) {
      i++;
      const next = lines[i]!.trim();
      l = `${l.slice(0, -1).trimEnd()} ${next.startsWith('#') ? '' : next}`;
    }
    const m = /^(\S+)\s*(.*)$/.exec(l)!;
    out.push({ line: start + 1, op: m[1]!.toUpperCase(), args: m[2]! });
  }
  return out;
}

export function dockerfileProblems(text: string): string[] {
  const out: string[] = [];
  const stages: Stage[] = [];
  let cur: Stage | undefined;
  for (const ins of instructions(text)) {
    const at = `line ${ins.line}:`;
    if (ins.op === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) {
        out.push(`${at} FROM ${ins.args} is not understood`);
        continue;
      }
      const [image, alias] = [m[1]!, m[2] ?? `stage ${stages.length}`];
      const parent = stages.find((s) => s.name === image);
      if (!parent) {
        const tag = image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1];
        if (!tag || tag === 'latest') out.push(`${at} base image ${image} is not pinned by a tag (never latest)`);
        else if (tag !== 'digest' && !/^\d+\.\d+/.test(tag)) out.push(`${at} base image ${image} pins no minor version (e.g. node:24.21-bookworm-slim)`);
      }
      cur = { name: alias, from: image, parent, user: parent?.user, runs: parent?.runs ?? false, copies: [] };
      stages.push(cur);
      continue;
    }
    if (!cur) {
      if (ins.op !== 'ARG') out.push(`${at} ${ins.op} before the first FROM`);
      continue;
    }
    if (ins.op === 'USER') cur.user = ins.args.trim();
    if (ins.op === 'CMD' || ins.op === 'ENTRYPOINT') cur.runs = true;
    if (ins.op === 'ADD') out.push(`${at} ADD: use COPY (ADD fetches URLs and unpacks archives)`);
    if (ins.op === 'COPY' && !/--from=/.test(ins.args)) {
      const parts = ins.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      cur.copies.push(...parts.slice(0, -1));
    }
    if (ins.op === 'RUN' && /\bapt-get\b.*\binstall\b/.test(ins.args)) {
      if (!ins.args.includes('--no-install-recommends')) out.push(`${at} apt-get install without --no-install-recommends`);
      if (!ins.args.includes('rm -rf /var/lib/apt/lists')) out.push(`${at} apt-get install without rm -rf /var/lib/apt/lists/* in the same RUN`);
    }
  }
  for (const s of stages) {
    if (!s.runs) continue;
    if (!s.user) out.push(`stage ${s.name}: runs as root (no USER)`);
    else if (!/^\d+(:\d+)?$/.test(s.user)) out.push(`stage ${s.name}: USER ${s.user} is not numeric (runAsNonRoot can only verify a numeric user)`);
    else if (/^0(:|$)/.test(s.user)) out.push(`stage ${s.name}: USER ${s.user} is root`);
  }
  return out;
}

/** The sources the Dockerfile copies from the build context (COPY without --from), as written. */
export function copiedSources(text: string): string[] {
  return instructions(text)
    .filter((i) => i.op === 'COPY' && !/--from=/.test(i.args))
    .flatMap((i) => {
      const parts = i.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      return parts.slice(0, -1).map((p) => p.replace(/^\.\//, '').replace(/\/$/, ''));
    });
}

/** Whether .dockerignore (its text) leaves `file` (relative to the context) out of the build context. */
export function ignoredBy(dockerignoreText: string): (file: string) => boolean {
  const ig = dockerignore({ ignorecase: false }).add(dockerignoreText.split('\n'));
  return (file) => ig.ignores(file);
}
