#!/usr/bin/env node
// The hostdir command: `serve` runs the server; every other command is a client of its admin API.
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CategoryMapError } from '../connectors/category-map.js';
import { CurrencyChoiceError, EmptyCatalogueError, UnmappedProductsError } from '../connectors/catalogue.js';
import type { Config as ServerConfig } from '../config.js';
import {
  AdminApiError,
  AdminClient,
  ConfigError,
  DEFAULT_URL,
  type Product,
  type ProductStatusFilter,
  resolveBaseUrl,
  resolveConnection,
  UnreachableError,
} from './admin-client.js';
import { BillingSystemError, redact, redactStrings } from './billing-http.js';
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
import { EXIT } from './exit-codes.js';
import { push, PushUsageError } from './push.js';
import { profileChangeOf, ProfileUsageError, profileText, providerProfile, type ProfileOptions } from './profile.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function profileChange(options: ProfileOptions) {
  try {
    return profileChangeOf(options);
  } catch (error) {
    if (error instanceof ProfileUsageError) throw new ConfigError(error.message);
    throw error;
  }
}
import {
  categoriesTable,
  hostDetails,
  hostsTable,
  issuedKeyNotice,
  keysTable,
  productsTable,
  syncsTable,
} from './format.js';
import { seedDemo } from './seed-demo.js';

/** A command that decided its own exit code (push) and has already said why. */
class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

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

interface BillingOptions {
  whmcsUrl?: string;
  blestaUrl?: string;
  hostbillUrl?: string;
  map?: string;
  currency?: string;
}

export function buildProgram(ctx: CliContext = processContext()): Command {
  const program = new Command('hostdir')
    .description('Operate a hostdir directory of hosting providers through its admin API.')
    .option('--url <url>', 'the server to talk to (default: $HOSTDIR_URL, else http://127.0.0.1:3000)')
    .configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr })
    // Subcommands inherit these settings only if they are set before the subcommands are added.
    .exitOverride();

  const client = (cmd: Command) =>
    new AdminClient(resolveConnection(ctx.env, ctx.readFile, cmd.optsWithGlobals<{ url?: string }>().url), ctx.fetch);

  /** `--json` prints the API's answer untouched; otherwise the text form. */
  const print = (cmd: Command, body: unknown, text: () => string) => {
    ctx.stdout(`${cmd.opts<{ json?: boolean }>().json ? JSON.stringify(body, null, 2) : text()}\n`);
  };

  const withJson = (cmd: Command) => cmd.option('--json', "print the API's JSON answer");

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

  const hosts = program.command('hosts').description('hosting providers listed in the directory');

  withJson(hosts.command('create'))
    .description('add a host and issue its first API key')
    .argument('<name>', 'display name, e.g. "Acme Hosting"')
    .option('--slug <slug>', 'URL name (default: derived from the name)')
    .option('--currency <code>', 'ISO 4217 currency for prices sent without one')
    .action(async (name: string, options: { slug?: string; currency?: string }, cmd: Command) => {
      const body = await client(cmd).createHost({ name, slug: options.slug, default_currency: options.currency });
      print(
        cmd,
        body,
        () => `Created host ${body.host.slug}.\n\n${hostDetails(body.host)}\n${issuedKeyNotice(body.api_key)}`,
      );
    });

  withJson(hosts.command('list'))
    .description('list every host')
    .action(async (_options: unknown, cmd: Command) => {
      const body = await client(cmd).listHosts();
      print(cmd, body, () => hostsTable(body.hosts));
    });

  withJson(hosts.command('show'))
    .description('show a host with its product counts and last sync')
    .argument('<slug>')
    .action(async (slug: string, _options: unknown, cmd: Command) => {
      const body = await client(cmd).showHost(slug);
      print(cmd, body, () => hostDetails(body.host));
    });

  withJson(hosts.command('suspend'))
    .description('suspend a host')
    .argument('<slug>')
    .action(async (slug: string, _options: unknown, cmd: Command) => {
      const body = await client(cmd).suspendHost(slug);
      print(cmd, body, () => `Host ${body.host.slug} is ${body.host.status}.`);
    });

  withJson(hosts.command('activate'))
    .description('activate a suspended host')
    .argument('<slug>')
    .action(async (slug: string, _options: unknown, cmd: Command) => {
      const body = await client(cmd).activateHost(slug);
      print(cmd, body, () => `Host ${body.host.slug} is ${body.host.status}.`);
    });

  const withProfileOptions = (cmd: Command) =>
    cmd
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

  withProfileOptions(withJson(hosts.command('update')))
    .description("change a host's profile: website, description, country, order link")
    .argument('<slug>')
    .action(async (slug: string, options: ProfileOptions, cmd: Command) => {
      const body = await client(cmd).updateHost(slug, profileChange(options));
      print(cmd, body, () => `Updated host ${body.host.slug}.\n\n${profileText(body.host)}`);
    });

  const keys = program.command('keys').description("hosts' API keys");

  withJson(keys.command('create'))
    .description('issue another API key for a host')
    .argument('<slug>')
    .action(async (slug: string, _options: unknown, cmd: Command) => {
      const body = await client(cmd).createKey(slug);
      print(cmd, body, () => `Issued a key for ${slug}.\n${issuedKeyNotice(body.api_key)}`);
    });

  withJson(keys.command('list'))
    .description("list a host's API keys")
    .argument('<slug>')
    .action(async (slug: string, _options: unknown, cmd: Command) => {
      const body = await client(cmd).listKeys(slug);
      print(cmd, body, () => keysTable(body.keys));
    });

  withJson(keys.command('revoke'))
    .description('revoke an API key')
    .argument('<key-id>', 'key_…, as shown by keys list')
    .action(async (keyId: string, _options: unknown, cmd: Command) => {
      const body = await client(cmd).revokeKey(keyId);
      print(cmd, body, () => `Key ${body.api_key.id} (${body.api_key.prefix}…) is ${body.api_key.status}.`);
    });

  const products = program.command('products').description("hosts' products as the directory holds them");

  withJson(products.command('list'))
    .description("list a host's products")
    .argument('<slug>')
    .addOption(
      new Option('--status <status>', 'active (the default), inactive or all').choices(['active', 'inactive', 'all']),
    )
    .option('--limit <n>', 'products per page', positiveInteger)
    .option('--all-pages', 'follow next_cursor to the end')
    .action(
      async (
        slug: string,
        options: { status?: ProductStatusFilter; limit?: number; allPages?: boolean },
        cmd: Command,
      ) => {
        const api = client(cmd);
        const query = { status: options.status, limit: options.limit };
        let body = await api.listProducts(slug, query);
        if (options.allPages) {
          const all: Product[] = [...body.products];
          while (body.next_cursor !== null) {
            body = await api.listProducts(slug, { ...query, cursor: body.next_cursor });
            all.push(...body.products);
          }
          body = { products: all, next_cursor: null };
        }
        const page = body;
        print(cmd, page, () =>
          withMoreHint(productsTable(page.products), page.next_cursor, 'pass --all-pages for the rest'),
        );
      },
    );

  const syncs = program.command('syncs').description("hosts' sync history");

  withJson(syncs.command('list'))
    .description("list a host's most recent syncs, newest first")
    .argument('<slug>')
    .option('--limit <n>', 'how many runs', positiveInteger)
    .action(async (slug: string, options: { limit?: number }, cmd: Command) => {
      const body = await client(cmd).listSyncs(slug, { limit: options.limit });
      print(cmd, body, () => withMoreHint(syncsTable(body.runs), body.next_cursor, 'raise --limit to see more'));
    });

  const categories = program.command('categories').description('the product categories hosts may use');

  withJson(categories.command('list'))
    .description('list every category')
    .action(async (_options: unknown, cmd: Command) => {
      const body = await client(cmd).listCategories();
      print(cmd, body, () => categoriesTable(body.categories));
    });

  withJson(categories.command('add'))
    .description('add a category')
    .argument('<slug>', 'e.g. game_factorio')
    .argument('<label>', 'e.g. "Factorio servers"')
    .action(async (slug: string, label: string, _options: unknown, cmd: Command) => {
      const body = await client(cmd).addCategory({ slug, label });
      print(cmd, body, () => `Added category ${body.category.slug} (${body.category.label}).`);
    });

  const rates = program.command('rates').description('exchange rates against EUR, which prices are compared in');

  withJson(rates.command('import'))
    .description("import exchange rates: the ECB's eurofxref-daily.xml (or its history files), or the JSON form")
    .argument('<file>', 'eurofxref-daily.xml, or {"date": "2026-11-20", "rates": {"USD": 1.08}}')
    .option('--source <name>', 'where the rates come from, kept with them (default: the ECB for XML)')
    .action(async (file: string, options: { source?: string }, cmd: Command) => {
      const text = ctx.readFile(file);
      if (text === undefined) throw new ConfigError(`no such file: ${file}`);
      const body = await client(cmd).importRates(text, options.source);
      const { import: done } = body;
      print(
        cmd,
        body,
        () =>
          `Imported ${done.days} day(s) of rates up to ${done.date}: ${done.rates_written} rate(s) written, ${done.products_updated} product price(s) converted again.`,
      );
    });

  withJson(rates.command('list'))
    .description("list each currency's latest rate, or one currency's days")
    .option('--currency <code>', 'the days of one currency, newest first')
    .option('--limit <n>', 'days to list', positiveInteger)
    .action(async (options: { currency?: string; limit?: number }, cmd: Command) => {
      const body = await client(cmd).listRates(options);
      print(cmd, body, () =>
        body.rates.length === 0
          ? 'No exchange rates yet: import some with hostdir rates import <file>.'
          : [
              'currency  1 EUR =        date        source',
              ...body.rates.map(
                (rate) => `${rate.currency.padEnd(9)} ${String(rate.rate).padEnd(14)} ${rate.date}  ${rate.source}`,
              ),
            ].join('\n'),
      );
    });

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

  withJson(program.command('seed-demo'))
    .description('fill an empty directory with example providers, synced through the real sync endpoint')
    .action(async (_options: unknown, cmd: Command) => {
      const connection = resolveConnection(ctx.env, ctx.readFile, cmd.optsWithGlobals<{ url?: string }>().url);
      const seeded = await seedDemo(new AdminClient(connection, ctx.fetch), connection.baseUrl, ctx.fetch);
      print(cmd, seeded, () =>
        [
          seeded.rates.imported
            ? `exchange rates: the ECB's of ${seeded.rates.date} (replace them with hostdir rates import, or set RATES_URL)`
            : 'exchange rates: the directory has its own, left as they are',
          ...seeded.hosts.map((host) =>
            host.products === null
              ? `${host.slug}: exists already, left as it is`
              : `${host.slug}: onboarded, ${host.products} products synced`,
          ),
          `Browse them at ${connection.baseUrl}/`,
        ].join('\n'),
      );
    });

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

  return program;
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

function nonEmptyEnv(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function positiveInteger(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidArgumentError('expected a whole number of at least 1.');
  }
  return value;
}

function withMoreHint(text: string, nextCursor: string | null, hint: string): string {
  return nextCursor === null ? text : `${text}\n(more exist: ${hint})`;
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
