// The provider's commands, with its API key: profile, push (a file, or a catalogue read from a billing system) and
// import (a catalogue read from a billing system, written as JSON).
import { writeFileSync } from 'node:fs';
import { Argument, type Command, Option } from 'commander';
import { ConfigError, DEFAULT_URL, resolveBaseUrl } from './admin-client.js';
import { redact, redactStrings } from './billing-http.js';
import {
  BILLING_SYSTEMS,
  billingName,
  billingSourceFrom,
  type BillingSystem,
  DEFAULT_BILLING_TIMEOUT_SECONDS,
  importCatalogue,
  type ImportOutcome,
  importReport,
  importReportJson,
  type ImportReportJson,
} from './billing-import.js';
import { type CommandKit, ExitCode, nonEmptyEnv, profileChange, withProfileOptions } from './command-context.js';
import { EXIT } from './exit-codes.js';
import { providerProfile, profileText, type ProfileOptions } from './profile.js';
import { push, PushUsageError } from './push.js';

interface BillingOptions {
  whmcsUrl?: string;
  blestaUrl?: string;
  hostbillUrl?: string;
  map?: string;
  currency?: string;
}

/** `profile show` and `profile set`. */
export function addProfileCommands(program: Command, { ctx, print, withJson }: CommandKit): void {
  const profile = program.command('profile').description("a provider's own profile, with its API key (like push)");

  withJson(profile.command('show'))
    .description("show the provider's profile")
    .option('--key <rk_…>', 'the API key (default: $HOSTDIR_API_KEY)')
    .action(async (options: { key?: string }, cmd: Command) => {
      const body = await providerProfile(...providerConnection(options, cmd), ctx.fetch);
      print(cmd, body, () => profileText(body.profile));
    });

  withProfileOptions(withJson(profile.command('set')))
    .description("change the provider's profile: fields not given are kept")
    .option('--key <rk_…>', 'the API key (default: $HOSTDIR_API_KEY)')
    .action(async (options: ProfileOptions & { key?: string }, cmd: Command) => {
      const body = await providerProfile(...providerConnection(options, cmd), ctx.fetch, profileChange(options));
      print(cmd, body, () => `Profile updated.\n\n${profileText(body.profile)}`);
    });

  /** The server and the provider's key, as push finds them. */
  const providerConnection = (options: { key?: string }, cmd: Command): [string, string] => {
    const apiKey = options.key ?? nonEmptyEnv(ctx.env.HOSTDIR_API_KEY);
    if (!apiKey) throw new ConfigError('no API key: pass --key rk_… or set HOSTDIR_API_KEY');
    return [
      resolveBaseUrl(cmd.optsWithGlobals<{ url?: string }>().url ?? nonEmptyEnv(ctx.env.HOSTDIR_URL) ?? DEFAULT_URL),
      apiKey,
    ];
  };
}

/** `push` and `import`. */
export function addCatalogueCommands(program: Command, { ctx }: CommandKit): void {
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  /** Where `push` (and `import --dry-run`) sends a catalogue: the API key, the server, how often a send is tried. */
  const pushTarget = (key: string | undefined, cmd: Command) => {
    const apiKey = key ?? nonEmptyEnv(ctx.env.HOSTDIR_API_KEY);
    if (!apiKey) throw new ConfigError('no API key: pass --key rk_… or set HOSTDIR_API_KEY');
    const baseUrl = resolveBaseUrl(
      cmd.optsWithGlobals<{ url?: string }>().url ?? nonEmptyEnv(ctx.env.HOSTDIR_URL) ?? DEFAULT_URL,
    );
    const attempts = nonEmptyEnv(ctx.env.HOSTDIR_PUSH_MAX_ATTEMPTS);
    const maxAttempts = attempts === undefined ? undefined : Number(attempts);
    if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1 && maxAttempts <= 100)) {
      throw new ConfigError('HOSTDIR_PUSH_MAX_ATTEMPTS must be a whole number from 1 to 100');
    }
    return { apiKey, baseUrl, maxAttempts };
  };

  /** Sends a catalogue as `hostdir push` does, and exits with push's code. */
  const sendCatalogue = async (
    source: string,
    catalogue: string,
    target: ReturnType<typeof pushTarget>,
    how: { dryRun: boolean; json: boolean; wait: boolean; importReport?: ImportReportJson },
  ): Promise<void> => {
    let code: number;
    try {
      code = await push(
        { file: source, catalogue, ...target, ...how },
        { stdout: ctx.stdout, stderr: ctx.stderr, stderrIsTTY: ctx.stderrIsTTY ?? false, sleep },
      );
    } catch (error) {
      if (error instanceof PushUsageError) throw new ConfigError(error.message);
      throw error;
    }
    if (code !== EXIT.ok) throw new ExitCode(code);
  };

  /** The options shared by `push --from` and `import`: where the billing system is, the map, the currency. */
  const withBillingOptions = (cmd: Command) =>
    cmd
      .option(
        '--whmcs-url <url>',
        "WHMCS's address (default: $WHMCS_URL); credentials from $WHMCS_IDENTIFIER and $WHMCS_SECRET",
      )
      .option(
        '--blesta-url <url>',
        "Blesta's address (default: $BLESTA_URL); credentials from $BLESTA_API_USER and $BLESTA_API_KEY",
      )
      .option(
        '--hostbill-url <url>',
        "HostBill's address (default: $HOSTBILL_URL); credentials from $HOSTBILL_API_ID and $HOSTBILL_API_KEY",
      )
      .option('--map <categories.json>', 'the category of each product group, module or product (null leaves them out)')
      .option(
        '--currency <code>',
        'the currency to list when prices come in several (HostBill: the currency its prices are in)',
      );

  /**
   * Reads the catalogue from a billing system and reports what was read and left out on stderr; the report comes
   * back as JSON too, for --json.
   */
  const importFrom = async (
    system: BillingSystem,
    options: BillingOptions,
  ): Promise<ImportOutcome & { report: ImportReportJson }> => {
    for (const other of BILLING_SYSTEMS) {
      if (other !== system && options[urlOptionOf(other)] !== undefined) {
        throw new ConfigError(
          `--${other}-url is for ${billingName(other)}, but the catalogue comes from ${billingName(system)}`,
        );
      }
    }
    const source = billingSourceFrom(system, ctx.env, options[urlOptionOf(system)]);
    let map: { text: string; file: string } | undefined;
    if (options.map !== undefined) {
      const text = ctx.readFile(options.map);
      if (text === undefined) throw new ConfigError(`no such file: ${options.map}`);
      map = { text, file: options.map };
    }
    try {
      const outcome = await importCatalogue(
        source,
        { map, currency: options.currency },
        { fetch: ctx.fetch, sleep, note: ctx.stderr, timeoutMs: billingTimeoutMs(ctx.env) },
      );
      // Names, notes and warnings quote the billing system's answer, which could echo a credential back.
      const secrets = Object.values(source.credentials);
      ctx.stderr(redact(importReport(source, outcome), secrets));
      return { ...outcome, report: redactStrings(importReportJson(source, outcome), secrets) };
    } catch (error) {
      // Whatever went wrong, its message is shown: it must not carry a credential.
      if (error instanceof Error) error.message = redact(error.message, Object.values(source.credentials));
      throw error;
    }
  };

  withBillingOptions(
    program
      .command('push')
      .description(
        "send a provider's catalogue: what a billing system runs from cron or a hook (uses the API key, not the admin token)",
      )
      .argument('[catalogue.json]', 'a file holding {"products": [...]} or a bare array of products')
      .addOption(
        new Option('--from <system>', 'read the catalogue from the billing system instead of a file').choices(
          BILLING_SYSTEMS,
        ),
      ),
  )
    .option('--key <rk_…>', 'the API key (default: $HOSTDIR_API_KEY)')
    .option('--dry-run', 'validate and show the plan; change nothing')
    .option('--json', "print the API's JSON answer")
    .option('--no-wait', `when rate limited, exit with code ${EXIT.rateLimited} instead of waiting for the window`)
    .action(
      async (
        file: string | undefined,
        options: BillingOptions & {
          from?: BillingSystem;
          key?: string;
          dryRun?: boolean;
          json?: boolean;
          wait: boolean;
        },
        cmd: Command,
      ) => {
        if (file !== undefined && options.from !== undefined) {
          throw new ConfigError('give either a catalogue file or --from, not both');
        }
        if (file === undefined && options.from === undefined) {
          throw new ConfigError(
            `give a catalogue file, or --from ${BILLING_SYSTEMS.join('|')} to read it from your billing system`,
          );
        }
        if (options.from === undefined && (options.map !== undefined || options.currency !== undefined)) {
          throw new ConfigError('--map and --currency apply to a catalogue read with --from');
        }
        const target = pushTarget(options.key, cmd);
        let catalogue: string;
        let source: string;
        let report: ImportReportJson | undefined;
        if (options.from !== undefined) {
          const outcome = await importFrom(options.from, options);
          catalogue = JSON.stringify({ products: outcome.products });
          source = `the catalogue read from ${billingName(options.from)}`;
          report = outcome.report;
        } else {
          const text = ctx.readFile(file!);
          if (text === undefined) throw new ConfigError(`no such file: ${file}`);
          catalogue = text;
          source = file!;
        }
        await sendCatalogue(source, catalogue, target, {
          dryRun: options.dryRun === true,
          json: options.json === true,
          wait: options.wait,
          ...(report === undefined ? {} : { importReport: report }),
        });
      },
    );

  withBillingOptions(
    program
      .command('import')
      .description(
        "read a provider's catalogue from its billing system and write it as JSON, sending nothing (look before you push)",
      )
      .addArgument(new Argument('<system>', 'the billing system').choices(BILLING_SYSTEMS)),
  )
    .option('--out <catalogue.json>', 'write the catalogue to this file (default: standard output, unless --dry-run)')
    .option('--dry-run', 'also send it as a dry run (with the API key, as push does) and show the plan; change nothing')
    .option('--key <rk_…>', 'the API key for --dry-run (default: $HOSTDIR_API_KEY)')
    .option('--json', "with --dry-run, print the API's JSON answer")
    .option(
      '--no-wait',
      `with --dry-run, when rate limited, exit with code ${EXIT.rateLimited} instead of waiting for the window`,
    )
    .action(
      async (
        system: BillingSystem,
        options: BillingOptions & { out?: string; dryRun?: boolean; key?: string; json?: boolean; wait: boolean },
        cmd: Command,
      ) => {
        if (options.dryRun !== true && (options.key !== undefined || options.json !== undefined || !options.wait)) {
          throw new ConfigError('--key, --json and --no-wait apply to import --dry-run');
        }
        // Known before the billing system is read: a dry run without a key would read it for nothing.
        const target = options.dryRun === true ? pushTarget(options.key, cmd) : null;
        const outcome = await importFrom(system, options);
        const text = `${JSON.stringify({ products: outcome.products }, null, 2)}\n`;
        if (options.out !== undefined) {
          (ctx.writeFile ?? ((path: string, data: string) => writeFileSync(path, data)))(options.out, text);
          ctx.stderr(
            `Wrote ${outcome.products.length} product${outcome.products.length === 1 ? '' : 's'} to ${options.out}.\n`,
          );
        } else if (target === null) {
          ctx.stdout(text);
        }
        if (target === null) return;
        // Standard output is the plan's: the catalogue went to --out, if anywhere.
        const source = options.out ?? `the catalogue read from ${billingName(system)}`;
        await sendCatalogue(source, JSON.stringify({ products: outcome.products }), target, {
          dryRun: true,
          json: options.json === true,
          wait: options.wait,
          importReport: outcome.report,
        });
      },
    );
}

function urlOptionOf(system: BillingSystem): 'whmcsUrl' | 'blestaUrl' | 'hostbillUrl' {
  return `${system}Url` as const;
}

function billingTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const raw = nonEmptyEnv(env.HOSTDIR_BILLING_TIMEOUT_SECONDS);
  if (raw === undefined) return DEFAULT_BILLING_TIMEOUT_SECONDS * 1000;
  const seconds = Number(raw);
  if (!(Number.isInteger(seconds) && seconds >= 1 && seconds <= 3600)) {
    throw new ConfigError('HOSTDIR_BILLING_TIMEOUT_SECONDS must be a whole number from 1 to 3600');
  }
  return seconds * 1000;
}
