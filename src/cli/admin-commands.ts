// The admin commands: hosts, keys, products, syncs, categories and rates, through the admin API; and seed-demo.
import { type Command, Option } from 'commander';
import { AdminClient, ConfigError, type Product, type ProductStatusFilter, resolveConnection } from './admin-client.js';
import {
  type CommandKit,
  positiveInteger,
  profileChange,
  withMoreHint,
  withProfileOptions,
} from './command-context.js';
import {
  categoriesTable,
  hostDetails,
  hostsTable,
  issuedKeyNotice,
  keysTable,
  productsTable,
  syncsTable,
} from './format.js';
import { profileText, type ProfileOptions } from './profile.js';
import { seedDemo } from './seed-demo.js';
import { addAccountCommands } from './accounts.js';

/** `hosts`, `keys`, `products`, `syncs`, `categories` and `rates`. */
export function addAdminCommands(program: Command, { ctx, client, print, withJson }: CommandKit): void {
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

  addAccountCommands(hosts, { ctx, client, print, withJson });

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
}

/** `seed-demo`: example providers, synced through the real sync endpoint. */
export function addSeedDemoCommand(program: Command, { ctx, print, withJson }: CommandKit): void {
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
}
