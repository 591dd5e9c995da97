// How the command line shows things as plain text: aligned tables, label/value lists, and
// the text form of each admin API answer.
import type { ApiKey, Category, Host, HostDetail, IssuedKey, Product, SyncRun } from './admin-client.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
  align?: 'left' | 'right';
}

const GAP = '  ';

export function formatTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string {
  const cells = rows.map((row) => columns.map((column) => printable(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(width(column.header), ...cells.map((line) => width(line[i] ?? ''))),
  );
  const render = (values: readonly string[]) =>
    values
      .map((value, i) => pad(value, widths[i] ?? 0, columns[i]?.align ?? 'left'))
      .join(GAP)
      .trimEnd();
  return [render(columns.map((column) => column.header)), ...cells.map(render)].join('\n');
}

export function formatFields(fields: readonly (readonly [label: string, value: string])[]): string {
  const labelWidth = Math.max(0, ...fields.map(([label]) => width(label)));
  return fields
    .map(([label, value]) => `${pad(label, labelWidth, 'left')}${GAP}${printable(value)}`.trimEnd())
    .join('\n');
}

/** ISO 8601 instants shortened to the second; anything else as given; null as a dash. */
export function formatTimestamp(value: string | null): string {
  if (value === null) return '-';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(value);
  return match ? `${match[1]} ${match[2]}Z` : value;
}

// Names come from hosts' billing systems: a control character must neither break the
// alignment nor reach the terminal as an escape sequence.
function printable(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

function width(value: string): number {
  return [...value].length;
}

function pad(value: string, to: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, to - width(value)));
  return align === 'right' ? fill + value : value + fill;
}

export function hostsTable(hosts: readonly Host[]): string {
  if (hosts.length === 0) return 'No hosts yet. Create one with: hostdir hosts create <name>';
  return formatTable<Host>(
    [
      { header: 'SLUG', value: (h) => h.slug },
      { header: 'NAME', value: (h) => h.name },
      { header: 'STATUS', value: (h) => h.status },
      { header: 'CURRENCY', value: (h) => h.default_currency },
      { header: 'CREATED', value: (h) => formatTimestamp(h.created_at) },
      {
        header: 'CONFIRMED',
        value: (h) =>
          h.confirmed_at === undefined ? '-' : h.confirmed_at === null ? 'never' : formatTimestamp(h.confirmed_at),
      },
      { header: 'STALE', value: (h) => (h.stale === undefined ? '-' : h.stale ? 'stale' : 'no') },
    ],
    hosts,
  );
}

export function hostDetails(host: Host | HostDetail): string {
  const fields: [string, string][] = [
    ['slug', host.slug],
    ['name', host.name],
    ['status', host.status],
    ['currency', host.default_currency],
    ['created', formatTimestamp(host.created_at)],
    ['updated', formatTimestamp(host.updated_at)],
  ];
  // The profile, when the host has one (hosts created before it, and answers of older servers, have none).
  for (const [label, value] of [
    ['website', host.website],
    ['country', host.country],
    ['description', host.description],
    ['order link', host.order_url_template],
  ] as const) {
    if (typeof value === 'string') fields.push([label, value]);
  }
  if ('product_counts' in host) {
    fields.push(
      ['products', `${host.product_counts.active} active, ${host.product_counts.inactive} inactive`],
      ['last sync', formatTimestamp(host.last_sync_at)],
    );
    if (host.stale !== undefined)
      fields.push(['stale', host.stale ? 'yes: no applied sync within STALE_AFTER_DAYS' : 'no']);
  }
  return formatFields(fields);
}

/** The plaintext key exists only in this one answer, so it is set apart and the operator told so. */
export function issuedKeyNotice(key: IssuedKey): string {
  return [
    '',
    `  API key  ${key.key}`,
    `  key id   ${key.id}`,
    '',
    'This key is shown only once: store it now, it cannot be shown again.',
  ].join('\n');
}

export function keysTable(keys: readonly ApiKey[]): string {
  if (keys.length === 0) return 'No API keys. Issue one with: hostdir keys create <slug>';
  return formatTable<ApiKey>(
    [
      { header: 'ID', value: (k) => k.id },
      { header: 'PREFIX', value: (k) => k.prefix },
      { header: 'STATUS', value: (k) => k.status },
      { header: 'CREATED', value: (k) => formatTimestamp(k.created_at) },
      { header: 'LAST USED', value: (k) => formatTimestamp(k.last_used_at) },
      { header: 'REVOKED', value: (k) => formatTimestamp(k.revoked_at) },
    ],
    keys,
  );
}

export function productsTable(products: readonly Product[]): string {
  if (products.length === 0) return 'No products.';
  return formatTable<Product>(
    [
      { header: 'EXTERNAL ID', value: (p) => p.external_id },
      { header: 'ID', value: (p) => p.id },
      { header: 'STATUS', value: (p) => p.status },
      { header: 'CATEGORY', value: (p) => p.category },
      { header: 'PRICE', value: (p) => (p.price === null ? 'on request' : `${p.price} ${p.currency}`), align: 'right' },
      { header: 'NAME', value: (p) => p.name },
    ],
    products,
  );
}

export function syncsTable(runs: readonly SyncRun[]): string {
  if (runs.length === 0) return 'No syncs yet.';
  const count = (header: string, pick: (s: SyncRun['summary']) => number): Column<SyncRun> => ({
    header,
    value: (run) => String(pick(run.summary)),
    align: 'right',
  });
  return formatTable<SyncRun>(
    [
      { header: 'SYNC ID', value: (r) => r.sync_id },
      { header: 'APPLIED', value: (r) => formatTimestamp(r.applied_at) },
      { header: 'DRY RUN', value: (r) => (r.dry_run ? 'yes' : 'no') },
      { header: 'MS', value: (r) => String(r.duration_ms), align: 'right' },
      count('RECEIVED', (s) => s.received),
      count('CREATED', (s) => s.created),
      count('UPDATED', (s) => s.updated),
      count('UNCHANGED', (s) => s.unchanged),
      count('REACTIVATED', (s) => s.reactivated),
      count('DEACTIVATED', (s) => s.deactivated),
    ],
    runs,
  );
}

export function categoriesTable(categories: readonly Category[]): string {
  if (categories.length === 0) return 'No categories.';
  return formatTable<Category>(
    [
      { header: 'SLUG', value: (c) => c.slug },
      { header: 'LABEL', value: (c) => c.label },
    ],
    categories,
  );
}
