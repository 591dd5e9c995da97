#!/usr/bin/env node
// The hostdir command: `serve` runs the server; every other command is a client of its admin API.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { CategoryMapError } from '../connectors/category-map.js';
import { CurrencyChoiceError, EmptyCatalogueError, UnmappedProductsError } from '../connectors/catalogue.js';
import type { Config as ServerConfig } from '../config.js';
import { addAdminCommands, addSeedDemoCommand } from './admin-commands.js';
import { AdminApiError, ConfigError, UnreachableError } from './admin-client.js';
import { BillingSystemError } from './billing-http.js';
import { type CliContext, commandKit, ExitCode } from './command-context.js';
import { EXIT } from './exit-codes.js';
import { addCatalogueCommands, addProfileCommands } from './provider-commands.js';

export type { CliContext } from './command-context.js';

export function buildProgram(ctx: CliContext = processContext()): Command {
  const program = new Command('hostdir')
    .description('Operate a hostdir directory of hosting providers through its admin API.')
    .option('--url <url>', 'the server to talk to (default: $HOSTDIR_URL, else http://127.0.0.1:3000)')
    .configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr })
    // Subcommands inherit these settings only if they are set before the subcommands are added.
    .exitOverride();

  const kit = commandKit(ctx);

  program
    .command('serve')
    .description('run the server (configured by HOST, PORT, DATA_DIR, DATABASE_URL, ADMIN_TOKEN, WORKERS, …)')
    .option(
      '--workers <n>',
      'server processes sharing the port (default: $WORKERS, else 1); more than 1 needs DATABASE_URL',
    )
    .action(async (options: { workers?: string }) => {
      // Loaded on demand so that client commands do not pay for Fastify and the database drivers.
      const [{ serve }, serverConfig] = await Promise.all([import('../server.js'), import('../config.js')]);
      let config: ServerConfig;
      try {
        config = serverConfig.loadConfig(
          options.workers === undefined ? ctx.env : { ...ctx.env, WORKERS: options.workers },
        );
      } catch (error) {
        if (error instanceof serverConfig.ConfigError) throw new ConfigError(error.message);
        throw error;
      }
      await serve(config);
    });

  addAdminCommands(program, kit);
  addProfileCommands(program, kit);
  addSeedDemoCommand(program, kit);
  addCatalogueCommands(program, kit);

  return program;
}

/** Runs the command line and answers its exit code; it never exits the process itself. */
export async function run(args: readonly string[], ctx: CliContext = processContext()): Promise<number> {
  try {
    await buildProgram(ctx).parseAsync([...args], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return report(error, ctx);
  }
}

function report(error: unknown, ctx: CliContext): number {
  if (error instanceof CommanderError) {
    // Commander has already printed the message or the help it stands for.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof ExitCode) return error.code;
  if (
    error instanceof ConfigError ||
    error instanceof CategoryMapError ||
    error instanceof UnmappedProductsError ||
    error instanceof CurrencyChoiceError ||
    error instanceof EmptyCatalogueError
  ) {
    ctx.stderr(`error: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof BillingSystemError) {
    ctx.stderr(`error: ${error.message}\n`);
    return EXIT.billingSystem;
  }
  if (error instanceof UnreachableError) {
    ctx.stderr(`error: ${error.message}\n`);
    return EXIT.unreachable;
  }
  if (error instanceof AdminApiError) {
    const lines = [`error: ${error.message}`, ...error.errors.map((e) => `  ${e.location} ${e.code} ${e.detail}`)];
    ctx.stderr(`${lines.join('\n')}\n`);
    return EXIT.refused;
  }
  // Not the server's answer but a failure here (a bug, or `serve` unable to start).
  ctx.stderr(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.refused;
}

function processContext(): CliContext {
  return {
    env: process.env,
    readFile: readFileIfPresent,
    fetch: globalThis.fetch,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

function readFileIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

// npm's bin link is a symlink, so compare real paths.
function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  // exitCode rather than exit(): piped output gets flushed, and `serve` keeps running.
  process.exitCode = await run(process.argv.slice(2));
}
