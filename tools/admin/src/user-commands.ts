import { createInterface } from 'node:readline';
import { SUBJECTS, type ConsoleRole, type ConsoleUser } from '@verity/contracts';
import { randomAlphanumeric } from '@verity/keys';
import type { CallOptions, RpcClient } from '@verity/platform';
import { required, UsageError } from './args.js';

export const USER_USAGE = `  user create      --org ORG_ID --email ADDRESS --role owner|admin|developer|reviewer [--password-stdin]
                   (a console user; without --password-stdin a generated password is printed, once)
  user list        --org ORG_ID`;

/** Length of a generated password: 24 of [A-Za-z0-9], about 143 bits. */
export const GENERATED_PASSWORD_LENGTH = 24;

/** The first line of standard input, without its line ending ('' when there is none). */
export async function readStdinLine(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const lines = createInterface({ input, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
    return '';
  } finally {
    lines.close();
  }
}

/**
 * The console user commands (docs/console.md, docs/operations.md). A password is never taken as an argument (it
 * would stay in the shell's history and the process list): `--password-stdin` reads it from standard input, or
 * one is generated and printed with the user, the only time it is shown.
 */
export async function runUserCommand(
  action: string,
  f: Record<string, string>,
  rpc: RpcClient,
  call: CallOptions,
  readPassword: () => Promise<string> = readStdinLine,
): Promise<unknown> {
  switch (action) {
    case 'create': {
      if (f.password !== undefined) throw new UsageError('--password is not accepted (it would be visible to other users of this machine): use --password-stdin, or let one be generated');
      const req = { org_id: required(f, 'org'), email: required(f, 'email'), role: required(f, 'role') as ConsoleRole };
      const fromStdin = f['password-stdin'] !== undefined;
      const password = fromStdin ? await readPassword() : randomAlphanumeric(GENERATED_PASSWORD_LENGTH);
      const user = await rpc.call(SUBJECTS.accountsConsoleUserCreate, { ...req, password }, call);
      return fromStdin ? user : ({ ...user, password } satisfies ConsoleUser & { password: string });
    }
    case 'list':
      return rpc.call(SUBJECTS.accountsConsoleUserList, { org_id: required(f, 'org') }, call);
    default:
      throw new UsageError(`unknown command "user ${action}"`);
  }
}
