// What every command is given: the command line's context, the admin client and the printing bound to it, and the
// small readers of options and environment the commands share.
import { type Command, InvalidArgumentError } from 'commander';
import { AdminClient, ConfigError, resolveConnection } from './admin-client.js';
import { profileChangeOf, ProfileUsageError, type ProfileOptions } from './profile.js';

/** Everything the command line touches outside itself, so that tests can stand in for it. */
export interface CliContext {
  env: Readonly<Record<string, string | undefined>>;
  readFile: (path: string) => string | undefined;
  fetch: typeof fetch;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** whether stderr is a terminal (push shows a progress line there) */
  stderrIsTTY?: boolean;
  /** writes a file (import --out); default: the file system */
  writeFile?: (path: string, text: string) => void;
  /** waits between retries; default: a timer */
  sleep?: (ms: number) => Promise<void>;
}

/** A command that decided its own exit code (push) and has already said why. */
export class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** The admin client, printing and the --json option, bound to one context. */
export interface CommandKit {
  ctx: CliContext;
  client: (cmd: Command) => AdminClient;
  print: (cmd: Command, body: unknown, text: () => string) => void;
  withJson: (cmd: Command) => Command;
}

export function commandKit(ctx: CliContext): CommandKit {
  const client = (cmd: Command) =>
    new AdminClient(resolveConnection(ctx.env, ctx.readFile, cmd.optsWithGlobals<{ url?: string }>().url), ctx.fetch);

  /** `--json` prints the API's answer untouched; otherwise the text form. */
  const print = (cmd: Command, body: unknown, text: () => string) => {
    ctx.stdout(`${cmd.opts<{ json?: boolean }>().json ? JSON.stringify(body, null, 2) : text()}\n`);
  };

  const withJson = (cmd: Command) => cmd.option('--json', "print the API's JSON answer");

  return { ctx, client, print, withJson };
}

export function withProfileOptions(cmd: Command): Command {
  return cmd
    .option('--website <url>', 'the website, https:// (an empty value clears it)')
    .option('--description <text>', 'a short description, at most 500 characters')
    .option('--country <code>', 'ISO 3166-1 alpha-2 country, e.g. DE')
    .option('--order-url-template <url>', "the order link, https://, with {external_id} where the product's id goes")
    .option(
      '--clear <fields>',
      'clear these fields (comma-separated: website, description, country, order_url_template)',
      collect,
      [],
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function profileChange(options: ProfileOptions) {
  try {
    return profileChangeOf(options);
  } catch (error) {
    if (error instanceof ProfileUsageError) throw new ConfigError(error.message);
    throw error;
  }
}

export function nonEmptyEnv(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function positiveInteger(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidArgumentError('expected a whole number of at least 1.');
  }
  return value;
}

export function withMoreHint(text: string, nextCursor: string | null, hint: string): string {
  return nextCursor === null ? text : `${text}\n(more exist: ${hint})`;
}
