// Example providers and catalogues for `hostdir seed-demo`: realistic enough that a newcomer sees how the
// directory reads, and deterministic so that screenshots and docs stay stable.

export interface DemoProduct {
  external_id: string;
  name: string;
  category: string;
  price?: number;
  currency?: string;
  description?: string;
  specs?: Record<string, string | number | boolean>;
  pricing_tiers?: { period: string; price: number }[];
  setup_fee?: number;
  contract_duration?: string;
  features?: string[];
  datacenter_locations?: string[];
  /** how many the provider can still sell; absent when it does not count */
  stock?: number;
}

export interface DemoHost {
  name: string;
  slug: string;
  default_currency: string;
  /** the public profile: where the provider is, its website, and the template of its order links */
  profile: { website: string; country: string; order_url_template: string };
  products: DemoProduct[];
}

/** A demo provider's profile, at a domain reserved for examples (RFC 2606): its order links lead nowhere real. */
function profileOf(slug: string, country: string): DemoHost['profile'] {
  return {
    website: `https://www.${slug}.example`,
    country,
    order_url_template: `https://www.${slug}.example/order?plan={external_id}`,
  };
}

/**
 * The euro foreign exchange reference rates the ECB published on 28 June 2024, of the currencies the demo's plans are
 * priced in: with them a fresh directory converts prices and sorts across currencies from its first page. Rates
 * imported afterwards (`hostdir rates import`, RATES_URL) are of a later day, and are used instead.
 */
export const DEMO_RATES = { date: '2024-06-28', rates: { USD: '1.0705', GBP: '0.84638' } } as const;
export const DEMO_RATES_SOURCE = 'ECB euro foreign exchange reference rates of 2024-06-28, shipped with the demo';

const round = (value: number) => Math.round(value * 100) / 100;

/** Monthly price with the usual discounts for paying ahead. */
function tiers(monthly: number, periods: ('quarterly' | 'annually' | 'biennially')[] = ['annually']) {
  const factor = { quarterly: 3 * 0.97, annually: 12 * 0.85, biennially: 24 * 0.78 };
  return [
    { period: 'monthly', price: monthly },
    ...periods.map((period) => ({ period, price: round(monthly * factor[period]) })),
  ];
}

function plans<T>(rows: T[], make: (row: T, index: number) => DemoProduct): DemoProduct[] {
  return rows.map(make);
}

const nordlicht: DemoHost = {
  name: 'Nordlicht Hosting',
  slug: 'nordlicht-hosting',
  default_currency: 'EUR',
  profile: profileOf('nordlicht-hosting', 'DE'),
  products: [
    ...plans(
      [
        ['Starter', 2.49, 10, 1, ['Free SSL', 'Daily backups']],
        ['Plus', 4.99, 50, 10, ['Free SSL', 'Daily backups', 'Free domain']],
        ['Pro', 8.99, 150, 50, ['Free SSL', 'Daily backups', 'Free domain', 'Staging']],
        ['Business', 14.99, 300, 200, ['Free SSL', 'Hourly backups', 'Free domain', 'Staging', 'Priority support']],
      ] as const,
      ([tier, monthly, disk, sites, features]) => ({
        external_id: `web-${tier.toLowerCase()}`,
        name: `Webhosting ${tier}`,
        category: 'web_shared',
        price: monthly,
        description: `Shared hosting on NVMe storage with LiteSpeed and PHP 8.3.\nUp to ${sites} websites, unlimited traffic.`,
        specs: { disk_gb: disk, websites: sites, email_accounts: sites * 10, php_versions: '8.1–8.3' },
        pricing_tiers: tiers(monthly, ['annually', 'biennially']),
        setup_fee: 0,
        contract_duration: '1 month',
        features: [...features, 'NVMe', 'LiteSpeed'],
        datacenter_locations: ['Frankfurt', 'Nuremberg'],
      }),
    ),
    ...plans(
      [
        ['WP Solo', 5.99, 1, 20],
        ['WP Studio', 11.99, 5, 60],
        ['WP Agency', 24.99, 25, 200],
      ] as const,
      ([name, monthly, sites, disk]) => ({
        external_id: name.toLowerCase().replace(' ', '-'),
        name: `Managed ${name}`,
        category: 'web_wordpress',
        price: monthly,
        description: 'Managed WordPress: automatic core and plugin updates, staging with one click, malware scans.',
        specs: { websites: sites, disk_gb: disk, visits_per_month: sites * 25000 },
        pricing_tiers: tiers(monthly),
        contract_duration: 'none',
        features: ['Free SSL', 'Staging', 'Daily backups', 'Malware scan', 'NVMe'],
        datacenter_locations: ['Frankfurt'],
      }),
    ),
    ...plans(
      [
        ['CX11', 3.79, 1, 2, 20],
        ['CX21', 5.83, 2, 4, 40],
        ['CX31', 10.59, 2, 8, 80],
        ['CX41', 18.92, 4, 16, 160],
        ['CX51', 36.58, 8, 32, 240],
      ] as const,
      ([model, monthly, cores, ram, disk]) => ({
        external_id: `vps-${model.toLowerCase()}`,
        name: `Cloud Server ${model}`,
        category: 'vps_cloud',
        price: monthly,
        description: `KVM virtual server with ${cores} vCPU, ${ram} GB RAM and ${disk} GB NVMe. Billed by the hour, capped at the monthly price.`,
        specs: { cpu_cores: cores, ram_gb: ram, disk_gb: disk, traffic_tb: 20, ipv4: true, ipv6: true },
        pricing_tiers: [
          { period: 'hourly', price: round(monthly / 730) },
          { period: 'monthly', price: monthly },
        ],
        setup_fee: 0,
        contract_duration: 'none',
        features: ['NVMe', 'DDoS protection', 'Snapshots', 'IPv6'],
        datacenter_locations: ['Frankfurt', 'Nuremberg', 'Helsinki'],
      }),
    ),
    ...plans(
      [
        // Servers are counted: one model plenty, one running short, one sold out.
        ['AX41', 44.0, 'AMD Ryzen 5 3600', 64, '2 × 512 GB NVMe', 40],
        ['AX52', 59.0, 'AMD Ryzen 7 7700', 64, '2 × 1 TB NVMe', 2],
        ['AX102', 104.0, 'AMD Ryzen 9 7950X3D', 128, '2 × 1.92 TB NVMe', 0],
      ] as const,
      ([model, monthly, cpu, ram, disks, stock]) => ({
        external_id: `ded-${model.toLowerCase()}`,
        name: `Dedicated ${model}`,
        category: 'dedicated',
        price: monthly,
        description: `Bare-metal server with ${cpu}, ${ram} GB DDR5 ECC and ${disks}. 1 Gbit/s uplink, unlimited traffic.`,
        specs: { cpu, ram_gb: ram, disks, uplink: '1 Gbit/s', traffic: 'unlimited' },
        pricing_tiers: tiers(monthly),
        setup_fee: 39,
        contract_duration: '1 month',
        features: ['DDoS protection', 'IPMI', 'Unlimited traffic'],
        datacenter_locations: ['Falkenstein', 'Helsinki'],
        stock,
      }),
    ),
    {
      external_id: 'mail-team',
      name: 'Mail Team',
      category: 'email',
      price: 1.5,
      description: 'Business email for your own domain, with spam filtering and webmail.',
      specs: { mailboxes: 10, storage_per_mailbox_gb: 10 },
      pricing_tiers: tiers(1.5),
      features: ['IMAP', 'Webmail', 'Spam filter'],
      datacenter_locations: ['Frankfurt'],
    },
    {
      external_id: 'domain-de',
      name: '.de domain',
      category: 'domain',
      price: 0.49,
      description: 'Register or transfer a .de domain. Price per month, billed yearly.',
      specs: { tld: '.de', dns_included: true },
      pricing_tiers: [
        { period: 'monthly', price: 0.49 },
        { period: 'annually', price: 5.88 },
      ],
      contract_duration: '12 months',
      features: ['DNS management', 'WHOIS privacy'],
    },
  ],
};

const harbor: DemoHost = {
  name: 'Harbor Cloud',
  slug: 'harbor-cloud',
  default_currency: 'USD',
  profile: profileOf('harbor-cloud', 'US'),
  products: [
    ...plans(
      [
        ['Nano', 4, 1, 0.5, 10],
        ['Micro', 6, 1, 1, 25],
        ['Small', 12, 1, 2, 50],
        ['Medium', 24, 2, 4, 80],
        ['Large', 48, 4, 8, 160],
        ['XL', 96, 8, 16, 320],
        ['2XL', 192, 16, 32, 640],
      ] as const,
      ([size, monthly, cores, ram, disk]) => ({
        external_id: `droplet-${size.toLowerCase()}`,
        name: `Harbor VM ${size}`,
        category: 'vps_cloud',
        price: monthly,
        description: `General-purpose virtual machine: ${cores} vCPU, ${ram} GB memory, ${disk} GB SSD. Per-second billing.`,
        specs: { cpu_cores: cores, ram_gb: ram, disk_gb: disk, transfer_tb: Math.max(1, cores * 2) },
        pricing_tiers: [
          { period: 'hourly', price: round(monthly / 672) },
          { period: 'monthly', price: monthly },
        ],
        contract_duration: 'none',
        features: ['SSD', 'Snapshots', 'Private networking', 'IPv6', 'Monitoring'],
        datacenter_locations: ['New York', 'San Francisco', 'Toronto', 'Amsterdam', 'Singapore'],
      }),
    ),
    ...plans(
      [
        ['Managed Essentials', 29, 2, 4],
        ['Managed Growth', 59, 4, 8],
        ['Managed Scale', 119, 8, 16],
      ] as const,
      ([name, monthly, cores, ram]) => ({
        external_id: name.toLowerCase().replace(' ', '-'),
        name,
        category: 'vps_managed',
        price: monthly,
        description: 'We patch, monitor and back up the server for you; a human answers within 15 minutes.',
        specs: { cpu_cores: cores, ram_gb: ram, control_panel: 'cPanel', sla: '99.99%' },
        pricing_tiers: tiers(monthly, ['quarterly', 'annually']),
        setup_fee: 0,
        contract_duration: '1 month',
        features: ['Daily backups', 'Monitoring', '24/7 support', 'Firewall'],
        datacenter_locations: ['New York', 'Dallas'],
      }),
    ),
    ...plans(
      [
        ['Spaces 250 GB', 5, 250],
        ['Spaces 1 TB', 18, 1000],
        ['Spaces 5 TB', 80, 5000],
      ] as const,
      ([name, monthly, gb]) => ({
        external_id: `storage-${gb}`,
        name: `Object Storage ${name.replace('Spaces ', '')}`,
        category: 'storage',
        price: monthly,
        description: 'S3-compatible object storage with a built-in CDN.',
        specs: { storage_gb: gb, egress_gb: gb * 4, s3_compatible: true },
        pricing_tiers: tiers(monthly),
        features: ['S3 API', 'CDN', 'Versioning'],
        datacenter_locations: ['New York', 'Amsterdam', 'Singapore'],
      }),
    ),
    {
      external_id: 'backup-100',
      name: 'Cloud Backup 100 GB',
      category: 'backup',
      price: 3,
      description: 'Encrypted off-site backups with 30 days of versions.',
      specs: { storage_gb: 100, retention_days: 30 },
      pricing_tiers: tiers(3),
      features: ['Encryption', 'Versioning'],
      datacenter_locations: ['Dallas'],
    },
    {
      external_id: 'cdn-starter',
      name: 'Edge CDN Starter',
      category: 'cdn',
      price: 10,
      description: '1 TB of CDN traffic across 60 points of presence.',
      specs: { traffic_tb: 1, pops: 60 },
      pricing_tiers: tiers(10),
      features: ['HTTP/3', 'Free SSL', 'Image optimization'],
    },
    ...plans(
      [
        ['GPU L4', 520, 'NVIDIA L4 24 GB', 1],
        ['GPU A100', 1890, 'NVIDIA A100 80 GB', 1],
        ['GPU H100 ×8', 19800, 'NVIDIA H100 80 GB', 8],
      ] as const,
      ([name, monthly, gpu, count]) => ({
        external_id: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
        name: `Bare-metal ${name}`,
        category: 'dedicated_gpu',
        price: monthly,
        description: `Dedicated GPU server with ${count} × ${gpu} for training and inference.`,
        specs: { gpu, gpu_count: count, ram_gb: count * 128, nvme_tb: count * 2 },
        pricing_tiers: [
          { period: 'hourly', price: round(monthly / 730) },
          { period: 'monthly', price: monthly },
        ],
        setup_fee: 0,
        contract_duration: '1 month',
        features: ['NVMe', 'Private networking', '25 Gbit/s'],
        datacenter_locations: ['Dallas', 'Toronto'],
      }),
    ),
    {
      // Quoted per customer, as colocation usually is: no price, listed as "price on request".
      external_id: 'colo-cage',
      name: 'Private colocation cage',
      category: 'colocation',
      description: 'A locked cage of 4 to 20 racks with dedicated power feeds and cross-connects. Priced per project.',
      specs: { racks: '4–20', power_kw_per_rack: 10 },
      contract_duration: '12 months',
      features: ['Biometric access', 'A+B power', 'Remote hands'],
      datacenter_locations: ['Dallas'],
    },
  ],
};

const GAMES = [
  ['game_minecraft', 'Minecraft', 'mc', 1.0],
  ['game_rust', 'Rust', 'rust', 1.6],
  ['game_valheim', 'Valheim', 'valheim', 1.2],
  ['game_palworld', 'Palworld', 'palworld', 1.8],
  ['game_cs2', 'Counter-Strike 2', 'cs2', 1.1],
] as const;

const blockforge: DemoHost = {
  name: 'BlockForge Games',
  slug: 'blockforge-games',
  default_currency: 'USD',
  profile: profileOf('blockforge-games', 'US'),
  products: [
    ...GAMES.flatMap(([category, game, code, factor]) =>
      (
        [
          ['Wood', 4, 10],
          ['Stone', 8, 24],
          ['Iron', 16, 64],
        ] as const
      ).map(([tier, ram, slots]) => {
        const monthly = round(ram * 1.25 * factor - 0.01);
        return {
          external_id: `${code}-${tier.toLowerCase()}`,
          name: `${game} ${tier}`,
          category,
          price: monthly,
          description: `${game} server with ${ram} GB RAM for up to ${slots} players. Mods and plugins installed with one click.`,
          specs: { ram_gb: ram, player_slots: slots, cpu: 'Ryzen 9 7950X', storage: 'NVMe' },
          pricing_tiers: tiers(monthly, ['quarterly']),
          setup_fee: 0,
          contract_duration: 'none',
          features: ['DDoS protection', 'Mod installer', 'Automatic backups', 'NVMe'],
          datacenter_locations: ['Chicago', 'Frankfurt', 'London', 'Singapore'],
        } satisfies DemoProduct;
      }),
    ),
    ...plans(
      [
        ['TeamSpeak 25 slots', 2.5, 25],
        ['TeamSpeak 100 slots', 7.5, 100],
      ] as const,
      ([name, monthly, slots]) => ({
        external_id: `ts-${slots}`,
        name,
        category: 'voice_teamspeak',
        price: monthly,
        description: 'TeamSpeak 3 voice server with a custom address.',
        specs: { slots },
        pricing_tiers: tiers(monthly),
        features: ['DDoS protection'],
        datacenter_locations: ['Frankfurt', 'Chicago'],
      }),
    ),
  ],
};

const kestrel: DemoHost = {
  name: 'Kestrel Web',
  slug: 'kestrel-web',
  default_currency: 'GBP',
  profile: profileOf('kestrel-web', 'GB'),
  products: [
    ...plans(
      [
        ['Lite', 1.99, 5, 1],
        ['Standard', 3.99, 25, 5],
        ['Unlimited', 6.49, 100, 100],
      ] as const,
      ([name, monthly, disk, sites]) => ({
        external_id: `uk-web-${name.toLowerCase()}`,
        name: `UK Web ${name}`,
        category: 'web_shared',
        price: monthly,
        description: 'Web hosting in UK data centres with cPanel and free Let’s Encrypt certificates.',
        specs: { disk_gb: disk, websites: sites, control_panel: 'cPanel' },
        pricing_tiers: tiers(monthly, ['annually', 'biennially']),
        contract_duration: '12 months',
        features: ['Free SSL', 'cPanel', 'Daily backups'],
        datacenter_locations: ['London', 'Manchester'],
      }),
    ),
    ...plans(
      [
        ['Reseller Bronze', 14.99, 20],
        ['Reseller Silver', 24.99, 50],
        ['Reseller Gold', 39.99, 150],
      ] as const,
      ([name, monthly, accounts]) => ({
        external_id: name.toLowerCase().replace(' ', '-'),
        name,
        category: 'web_reseller',
        price: monthly,
        description: 'White-label reseller hosting with WHM and WHMCS included.',
        specs: { cpanel_accounts: accounts, disk_gb: accounts * 5, whmcs_included: true },
        pricing_tiers: tiers(monthly),
        setup_fee: 0,
        contract_duration: '1 month',
        features: ['WHM', 'WHMCS', 'White label', 'Free SSL'],
        datacenter_locations: ['London'],
      }),
    ),
    ...plans(
      [
        ['DV SSL', 0.75, 'Domain validation'],
        ['Wildcard SSL', 4.5, 'Domain validation, all subdomains'],
        ['EV SSL', 8.25, 'Extended validation'],
      ] as const,
      ([name, monthly, validation]) => ({
        external_id: name.toLowerCase().replace(' ', '-'),
        name: `${name} certificate`,
        category: 'ssl',
        price: monthly,
        description: `${validation}. Price per month, billed yearly.`,
        specs: { validation, warranty: monthly > 5 ? '£1,000,000' : '£10,000' },
        pricing_tiers: [
          { period: 'Monthly', price: monthly },
          { period: 'Annually', price: round(monthly * 12) },
        ],
        contract_duration: '1 year',
        features: ['Site seal', 'Free reissue'],
      }),
    ),
    {
      external_id: 'domain-co-uk',
      name: '.co.uk domain',
      category: 'domain',
      price: 0.79,
      description: 'A .co.uk domain with free DNS and email forwarding. Price per month, billed yearly.',
      specs: { tld: '.co.uk' },
      pricing_tiers: [
        { period: '1 month', price: 0.79 },
        { period: '1 year', price: 9.48 },
      ],
      contract_duration: '1 year',
      features: ['DNS management', 'Email forwarding'],
    },
    {
      external_id: 'uk-mail',
      name: 'UK Business Email',
      category: 'email',
      price: 2.25,
      description: 'Email hosted in the UK with 25 GB mailboxes.',
      specs: { mailboxes: 5, storage_per_mailbox_gb: 25 },
      pricing_tiers: tiers(2.25),
      features: ['IMAP', 'Webmail', 'Spam filter', 'Calendar'],
      datacenter_locations: ['London'],
    },
  ],
};

export const DEMO_HOSTS: DemoHost[] = [nordlicht, harbor, blockforge, kestrel];
