// Realistic catalogues for the benchmark: every field of every product filled, about 500 bytes of JSON each.

const CATEGORIES = [
  'vps_cloud',
  'vps_managed',
  'web_shared',
  'web_wordpress',
  'dedicated',
  'dedicated_gpu',
  'storage',
  'game_minecraft',
];
const CURRENCIES = ['usd', 'EUR', 'gbp', 'CHF'];
const PERIODS = ['hourly', 'monthly', 'quarterly', 'semiannually', 'annually', 'biennially', 'triennially'];
const DURATIONS = ['1 month', '12 months', 'P1Y', 'P3M', 'none', '2 years'];
const FEATURES = [
  'NVMe storage',
  'DDoS protection',
  'Daily backups',
  'Free SSL',
  'IPv6',
  'Root access',
  'Snapshots',
  '24/7 support',
];
const LOCATIONS = ['Frankfurt', 'Amsterdam', 'Helsinki', 'Ashburn', 'Singapore', 'London', 'Paris', 'Warsaw'];

/** A price with cents that a binary float cannot hold exactly, as billing systems send them. */
function price(i, base) {
  return Math.round((base + (i % 97) * 1.37) * 100) / 100;
}

/** Product number i of a catalogue; `variant` changes its content (not its external_id). */
export function product(i, variant = 0) {
  const cores = 1 << (i % 4);
  const monthly = price(i + variant, 4.99);
  return {
    external_id: `sku-${String(i).padStart(7, '0')}`,
    name: `Cloud VPS ${cores * 2} GB — plan ${i}${variant ? ` v${variant}` : ''}`,
    category: CATEGORIES[i % CATEGORIES.length],
    price: monthly,
    currency: CURRENCIES[i % CURRENCIES.length],
    description: `A virtual server with ${cores} vCPU, NVMe storage and a routed IPv4 address.`,
    specs: { cpu_cores: cores, ram_gb: cores * 2, disk_gb: cores * 40, ipv6: i % 2 === 0, bandwidth: `${cores} TB` },
    pricing_tiers: [
      { period: PERIODS[i % PERIODS.length], price: monthly },
      { period: 'annually' === PERIODS[i % PERIODS.length] ? 'biennially' : 'annually', price: price(i, 49.9) },
    ],
    setup_fee: price(i, 0.5),
    contract_duration: DURATIONS[i % DURATIONS.length],
    features: [FEATURES[i % 8], FEATURES[(i + 3) % 8], FEATURES[(i + 5) % 8]],
    datacenter_locations: [LOCATIONS[i % 8], LOCATIONS[(i + 1) % 8]],
  };
}

/** Products from..from+count-1. */
export function catalogue(count, from = 0) {
  const products = new Array(count);
  for (let k = 0; k < count; k++) products[k] = product(from + k);
  return products;
}

/**
 * The "mixed" resend of catalogue(count): 10% changed, 5% left out (deactivated), 5% new.
 * Changed: every 10th; left out: every 20th of the others (offset 5); new: numbered after the catalogue.
 */
export function mixedCatalogue(count) {
  const products = [];
  for (let i = 0; i < count; i++) {
    if (i % 20 === 5) continue;
    products.push(i % 10 === 0 ? product(i, 1) : product(i));
  }
  for (let k = 0; k < count / 20; k++) products.push(product(count + k));
  return products;
}

export function body(products) {
  return Buffer.from(JSON.stringify({ products }));
}
