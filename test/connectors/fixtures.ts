// Billing systems' answers as their public API documentation shows them. Each fixture names the page it follows;
// "verbatim" ones are that page's example as printed, the others use only the fields and conventions the page
// documents, with realistic catalogues (several currencies, cycles not offered, free and one-time products, HTML
// descriptions, names beyond ASCII).

// ----------------------------------------------------------------------------------------------------- WHMCS

/** Verbatim: the "Example Response JSON" of https://developers.whmcs.com/api-reference/getproducts/ */
export const WHMCS_GETPRODUCTS_EXAMPLE = {
  result: 'success',
  totalresults: 1,
  products: {
    product: [
      {
        pid: 1,
        gid: 1,
        type: 'hostingaccount',
        name: 'Best Hosting Plan',
        slug: 'best-hosting-plan',
        'product-url': 'https://www.example.com/whmcs/product-group/best-hosting-plan',
        description: 'This is our best hosting plan, with all the bells and whistles.',
        module: 'cpanel',
        paytype: 'recurring',
        allowqty: 2,
        quantity_available: 0,
        pricing: {
          USD: {
            prefix: '$',
            suffix: ' USD',
            msetupfee: '0.00',
            qsetupfee: '0.00',
            ssetupfee: '0.00',
            asetupfee: '0.00',
            bsetupfee: '0.00',
            tsetupfee: '0.00',
            monthly: '25.99',
            quarterly: '-1.00',
            semiannually: '-1.00',
            annually: '-1.00',
            biennially: '-1.00',
            triennially: '-1.00',
          },
        },
        customfields: {
          customfield: [
            {
              id: 2,
              name: 'Secondary Contact',
              description: 'Would you like to provide a secondary point of contact?',
              required: '',
            },
          ],
        },
        configoptions: {
          configoption: [
            {
              id: 4,
              name: 'MultiPHP Services',
              type: '3',
              minqty: 1,
              maxqty: 10,
              options: {
                option: [
                  {
                    id: 4,
                    name: 'Include MultiPHP Options',
                    rawName: null,
                    recurring: 0,
                    required: null,
                    pricing: {
                      USD: {
                        msetupfee: '0.00',
                        qsetupfee: '0.00',
                        ssetupfee: '0.00',
                        asetupfee: '0.00',
                        bsetupfee: '0.00',
                        tsetupfee: '0.00',
                        monthly: '2.99',
                        quarterly: '0.00',
                        semiannually: '0.00',
                        annually: '0.00',
                        biennially: '0.00',
                        triennially: '0.00',
                      },
                    },
                  },
                ],
              },
            },
          ],
        },
      },
    ],
  },
};

/** One currency's prices in GetProducts' shape (https://developers.whmcs.com/api-reference/getproducts/). */
function whmcsPrices(
  prefix: string,
  suffix: string,
  cycles: Partial<Record<'m' | 'q' | 's' | 'a' | 'b' | 't', [string, string]>>,
) {
  const price = (c: 'm' | 'q' | 's' | 'a' | 'b' | 't') => cycles[c] ?? ['-1.00', '-1.00'];
  return {
    prefix,
    suffix,
    msetupfee: price('m')[1],
    qsetupfee: price('q')[1],
    ssetupfee: price('s')[1],
    asetupfee: price('a')[1],
    bsetupfee: price('b')[1],
    tsetupfee: price('t')[1],
    monthly: price('m')[0],
    quarterly: price('q')[0],
    semiannually: price('s')[0],
    annually: price('a')[0],
    biennially: price('b')[0],
    triennially: price('t')[0],
  };
}

function whmcsProduct(
  fields: {
    pid: number;
    gid: number;
    type: string;
    name: string;
    description: string;
    module: string;
    paytype: string;
    pricing: unknown;
  },
  extras: { customfields?: unknown[]; configoptions?: unknown[] } = {},
) {
  return {
    ...fields,
    slug: fields.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    'product-url': `https://billing.example.com/store/${fields.pid}`,
    allowqty: 0,
    quantity_available: 0,
    customfields: { customfield: extras.customfields ?? [] },
    configoptions: { configoption: extras.configoptions ?? [] },
  };
}

/** A configurable option's prices in one currency: the monthly price and setup fee, "0.00" for the other cycles. */
function whmcsOptionPrices(monthly: string, setup: string) {
  return {
    msetupfee: setup,
    qsetupfee: '0.00',
    ssetupfee: '0.00',
    asetupfee: '0.00',
    bsetupfee: '0.00',
    tsetupfee: '0.00',
    monthly,
    quarterly: '0.00',
    semiannually: '0.00',
    annually: '0.00',
    biennially: '0.00',
    triennially: '0.00',
  };
}

/**
 * A configurable option's choice as GetProducts lists it (id, name, rawName, recurring, required, pricing): a raw name
 * "value|Shown name" is shown after the bar; a choice named without a bar carries its setup fee in `name`.
 */
function whmcsChoice(id: number, rawName: string, monthly: { USD: string; EUR: string }, setup = '0.00') {
  const bar = rawName.indexOf('|');
  const shown = bar > 0 ? rawName.slice(bar + 1).trim() : rawName;
  return {
    id,
    name: bar > 0 || setup === '0.00' ? shown : `${shown} + $${setup} USD Setup Fee`,
    rawName,
    recurring: Number(monthly.USD),
    required: bar > 0 ? rawName.slice(0, bar) : rawName,
    pricing: { USD: whmcsOptionPrices(monthly.USD, setup), EUR: whmcsOptionPrices(monthly.EUR, setup) },
  };
}

/** A configurable option as GetProducts lists it; type 1 dropdown, 2 radio, 3 yes/no, 4 quantity. */
function whmcsConfigOption(id: number, name: string, type: '1' | '2' | '3' | '4', choices: unknown[]) {
  return { id, name, type, options: { option: choices } };
}

/**
 * A provider's whole catalogue in the shape of https://developers.whmcs.com/api-reference/getproducts/: three
 * groups (1 shared hosting with cPanel, 2 VPS with a provisioning module, 3 game servers), USD and EUR prices,
 * cycles not offered ("-1.00"), a free product and a one-time one (AddProduct's pay types,
 * https://developers.whmcs.com/api-reference/addproduct/), HTML descriptions and names beyond ASCII; specs stated
 * in descriptions ("4 GB RAM", "CPU: 8 cores", "Location: Frankfurt, Germany") and in configurable options (a
 * location to choose, a disk with one choice, RAM to choose, an operating system, extra IPs, backups), and a
 * custom field, a question to the customer.
 */
export const WHMCS_CATALOGUE = {
  result: 'success',
  totalresults: 8,
  products: {
    product: [
      whmcsProduct({
        pid: 1,
        gid: 1,
        type: 'hostingaccount',
        name: 'Starter',
        description:
          '<p><strong>10 GB</strong> NVMe &amp; free SSL</p>\r\n<ul>\r\n<li>1 website</li>\r\n<li>Daily backups</li>\r\n</ul>',
        module: 'cpanel',
        paytype: 'recurring',
        pricing: {
          USD: whmcsPrices('$', ' USD', { m: ['4.99', '5.00'], a: ['49.90', '0.00'], b: ['89.00', '0.00'] }),
          EUR: whmcsPrices('€', ' EUR', { m: ['4.59', '4.00'], a: ['45.90', '0.00'] }),
        },
      }),
      whmcsProduct({
        pid: 2,
        gid: 1,
        type: 'hostingaccount',
        name: 'Business &amp; Co',
        description: 'Unlimited websites\nUnlimited e-mail',
        module: 'cpanel',
        paytype: 'recurring',
        pricing: {
          USD: whmcsPrices('$', ' USD', { a: ['120.00', '10.00'], t: ['300.00', '0.00'] }),
          EUR: whmcsPrices('€', ' EUR', { a: ['110.00', '9.00'] }),
        },
      }),
      whmcsProduct({
        pid: 7,
        gid: 2,
        type: 'server',
        name: 'Serveur Dédié Ü — 東京',
        description: '<div>CPU: 8&nbsp;cores</div><div>RAM: 32&#8239;GB</div><script>alert(1)</script>',
        module: 'proxmox',
        paytype: 'recurring',
        pricing: {
          USD: whmcsPrices('$', ' USD', { m: ['89.00', '49.00'], q: ['255.00', '0.00'], s: ['495.00', '0.00'] }),
          EUR: whmcsPrices('€', ' EUR', { m: ['82.00', '45.00'] }),
        },
      }),
      whmcsProduct({
        pid: 9,
        gid: 2,
        type: 'server',
        name: 'Trial VPS',
        description: 'Seven days to try',
        module: 'proxmox',
        paytype: 'free',
        pricing: { USD: whmcsPrices('$', ' USD', {}), EUR: whmcsPrices('€', ' EUR', {}) },
      }),
      whmcsProduct(
        {
          pid: 10,
          gid: 2,
          type: 'server',
          name: 'Cloud VPS M',
          description: '<p>4 GB RAM<br>\r\n2 vCPU<br>\r\n80 GB SSD<br>\r\nLocation: Frankfurt, Germany</p>',
          module: 'proxmox',
          paytype: 'recurring',
          pricing: {
            USD: whmcsPrices('$', ' USD', { m: ['12.00', '0.00'], a: ['120.00', '0.00'] }),
            EUR: whmcsPrices('€', ' EUR', { m: ['11.00', '0.00'] }),
          },
        },
        {
          customfields: [
            {
              id: 5,
              name: 'Data center',
              description: 'Your preferred data center; we confirm it by e-mail',
              required: '',
            },
          ],
          configoptions: [
            whmcsConfigOption(11, 'Operating System', '2', [
              whmcsChoice(31, 'debian12|Debian 12', { USD: '0.00', EUR: '0.00' }),
              whmcsChoice(32, 'ubuntu2404|Ubuntu 24.04', { USD: '0.00', EUR: '0.00' }),
            ]),
            whmcsConfigOption(12, 'Extra IPv4 addresses', '4', [
              whmcsChoice(33, 'IPv4 address', { USD: '2.00', EUR: '2.00' }),
            ]),
          ],
        },
      ),
      whmcsProduct(
        {
          pid: 11,
          gid: 2,
          type: 'server',
          name: 'Cloud VPS L',
          description: '8 GB RAM\r\n4 vCPU cores',
          module: 'proxmox',
          paytype: 'recurring',
          pricing: {
            USD: whmcsPrices('$', ' USD', { m: ['24.00', '0.00'] }),
            EUR: whmcsPrices('€', ' EUR', { m: ['22.00', '0.00'] }),
          },
        },
        {
          configoptions: [
            whmcsConfigOption(13, 'Location', '1', [
              whmcsChoice(34, 'fra|Frankfurt, Germany', { USD: '0.00', EUR: '0.00' }),
              whmcsChoice(35, 'nyc|New York, United States', { USD: '0.00', EUR: '0.00' }),
              whmcsChoice(36, 'sin|Singapore', { USD: '2.00', EUR: '2.00' }, '5.00'),
            ]),
            whmcsConfigOption(14, 'Disk', '1', [whmcsChoice(37, '160 GB NVMe', { USD: '0.00', EUR: '0.00' })]),
            whmcsConfigOption(15, 'Memory', '1', [
              whmcsChoice(38, '8 GB', { USD: '0.00', EUR: '0.00' }),
              whmcsChoice(39, '16 GB', { USD: '20.00', EUR: '18.00' }, '10.00'),
            ]),
            whmcsConfigOption(16, 'Automated backups', '3', [
              whmcsChoice(40, 'Daily backups', { USD: '4.00', EUR: '4.00' }),
            ]),
          ],
        },
      ),
      whmcsProduct({
        pid: 12,
        gid: 3,
        type: 'other',
        name: 'Minecraft 4 GB',
        description: '',
        module: 'pterodactyl',
        paytype: 'onetime',
        pricing: {
          USD: whmcsPrices('$', ' USD', { m: ['15.00', '2.50'] }),
          EUR: whmcsPrices('€', ' EUR', { m: ['14.00', '2.00'] }),
        },
      }),
      whmcsProduct({
        pid: 13,
        gid: 3,
        type: 'other',
        name: 'Legacy Rust server',
        description: 'No longer sold',
        module: 'pterodactyl',
        paytype: 'recurring',
        pricing: { USD: whmcsPrices('$', ' USD', { m: ['19.00', '0.00'] }), EUR: whmcsPrices('€', ' EUR', {}) },
      }),
    ],
  },
};

/** The answers of the WHMCS API when it refuses a call (https://developers.whmcs.com/api/authentication/, .../api/access-control/). */
export const WHMCS_AUTHENTICATION_FAILED = { result: 'error', message: 'Authentication Failed' };
export const whmcsInvalidIp = (ip: string) => ({ result: 'error', message: `Invalid IP ${ip}` });

// ---------------------------------------------------------------------------------------------------- Blesta

/**
 * Packages in the shape of Blesta's Packages model (https://source-docs.blesta.com/classes/Packages.html): the
 * fields Packages::add documents (names, descriptions with text and html, status, hidden, module_id, pricing with
 * term, period, price, setup_fee, cancel_fee, currency, groups), with the id and the company language's name and
 * description_html beside them. Prices as Blesta's API sends decimals, with four places.
 */
export const BLESTA_PACKAGES = [
  {
    id: 3,
    name: 'Cloud VPS S',
    names: [
      { lang: 'en_us', name: 'Cloud VPS S' },
      { lang: 'de_de', name: 'Cloud-VPS S' },
    ],
    description: '2 vCPU\n4 GB RAM',
    description_html: '<p>2 vCPU</p><p>4 GB RAM</p>',
    descriptions: [{ lang: 'en_us', text: '2 vCPU\n4 GB RAM', html: '<p>2 vCPU</p><p>4 GB RAM</p>' }],
    status: 'active',
    hidden: '0',
    module_id: '2',
    qty: null,
    taxable: '1',
    groups: [{ id: '4', name: 'Virtual servers' }],
    option_groups: [{ id: '2', company_id: '1', name: 'Cloud options', description: '' }],
    pricing: [
      {
        id: '11',
        term: '1',
        period: 'month',
        price: '6.5000',
        setup_fee: '0.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
      {
        id: '12',
        term: '12',
        period: 'month',
        price: '70.0000',
        setup_fee: '0.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
      {
        id: '13',
        term: '1',
        period: 'year',
        price: '70.0000',
        setup_fee: '0.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
      {
        id: '14',
        term: '1',
        period: 'month',
        price: '7.0000',
        setup_fee: '0.0000',
        cancel_fee: '0.0000',
        currency: 'USD',
      },
    ],
  },
  {
    id: 5,
    names: [{ lang: 'en_us', name: 'Große Webseite ✓' }],
    descriptions: [{ lang: 'en_us', text: 'Für Vereine', html: '' }],
    status: 'active',
    hidden: '0',
    module_id: '1',
    groups: ['6'],
    pricing: [
      {
        id: '21',
        term: '3',
        period: 'month',
        price: '12.0000',
        setup_fee: '3.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
      {
        id: '22',
        term: '1',
        period: 'year',
        price: '40.0000',
        setup_fee: '0.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
    ],
  },
  {
    id: 8,
    name: 'SSL certificate',
    description_html: '<b>Domain validated</b>',
    status: 'active',
    hidden: '0',
    module_id: '5',
    groups: [{ id: '7', name: 'Security' }],
    pricing: [
      {
        id: '31',
        term: '0',
        period: 'onetime',
        price: '9.0000',
        setup_fee: '0.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
    ],
  },
  {
    id: 9,
    name: 'Game server',
    status: 'active',
    hidden: '0',
    module_id: '7',
    groups: [{ id: '8', name: 'Games' }],
    pricing: [
      {
        id: '41',
        term: '1',
        period: 'week',
        price: '2.5000',
        setup_fee: '0.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
      {
        id: '42',
        term: '1',
        period: 'month',
        price: '8.0000',
        setup_fee: '1.0000',
        cancel_fee: '0.0000',
        currency: 'EUR',
      },
    ],
  },
  { id: 10, name: 'Old plan', status: 'inactive', hidden: '0', module_id: '1', groups: ['6'], pricing: [] },
  { id: 11, name: 'Partner plan', status: 'restricted', hidden: '0', module_id: '1', groups: ['6'], pricing: [] },
  { id: 12, name: 'Internal plan', status: 'active', hidden: '1', module_id: '1', groups: ['6'], pricing: [] },
];

/** A package option value's price (PackageOptions::getValuePricing): one month in EUR. */
function blestaValuePricing(id: string, price: string) {
  return [
    {
      id,
      pricing_id: id,
      option_value_id: id,
      term: '1',
      period: 'month',
      price,
      price_renews: null,
      setup_fee: '0.0000',
      cancel_fee: '0.0000',
      currency: 'EUR',
      precision: 2,
    },
  ];
}

/** A package option value in the shape of PackageOptions::getValues (https://source-docs.blesta.com/classes/PackageOptions.html). */
function blestaValue(
  id: string,
  name: string,
  value: string | null,
  fields: { status?: string; price?: string; min?: string; max?: string } = {},
) {
  const quantity = fields.min !== undefined;
  return {
    id,
    option_id: '0',
    value,
    name,
    default: '0',
    status: fields.status ?? 'active',
    min: quantity ? fields.min : null,
    max: quantity ? fields.max : null,
    step: quantity ? '1' : null,
    order: '0',
    pricing: blestaValuePricing(id, fields.price ?? '0.0000'),
  };
}

/**
 * The answers of package_options/getByPackageId (PackageOptions::getByPackageId,
 * https://source-docs.blesta.com/classes/PackageOptions.html) by package id: for package 3, a location to choose (one
 * value inactive), an operating system, extra IPs by quantity, a disk with one value, and a hidden option.
 */
export const BLESTA_PACKAGE_OPTIONS: Record<string, unknown[]> = {
  '3': [
    {
      id: '1',
      company_id: '1',
      label: 'Location',
      name: 'location',
      description: '',
      type: 'select',
      addable: '1',
      editable: '0',
      hidden: '0',
      values: [
        blestaValue('1', 'Frankfurt, Germany', 'fra'),
        blestaValue('2', 'Helsinki, Finland', 'hel'),
        blestaValue('3', 'Ashburn, United States', 'ash', { status: 'inactive' }),
      ],
    },
    {
      id: '2',
      company_id: '1',
      label: 'Operating system',
      name: 'os',
      description: '',
      type: 'radio',
      addable: '1',
      editable: '1',
      hidden: '0',
      values: [blestaValue('4', 'Debian 12', 'debian-12'), blestaValue('5', 'AlmaLinux 9', 'almalinux-9')],
    },
    {
      id: '3',
      company_id: '1',
      label: 'Extra IPv4 addresses',
      name: 'ipv4',
      description: '',
      type: 'quantity',
      addable: '1',
      editable: '1',
      hidden: '0',
      values: [blestaValue('6', 'IPv4', null, { min: '0', max: '4', price: '2.0000' })],
    },
    {
      id: '4',
      company_id: '1',
      label: 'Storage',
      name: 'storage',
      description: '',
      type: 'select',
      addable: '0',
      editable: '0',
      hidden: '0',
      values: [blestaValue('7', '80 GB NVMe', '80')],
    },
    {
      id: '5',
      company_id: '1',
      label: 'Data center',
      name: 'node',
      description: 'staff only',
      type: 'select',
      addable: '0',
      editable: '0',
      hidden: '1',
      values: [blestaValue('8', 'Staging lab, Helsinki', 'lab')],
    },
  ],
};

/** The errors of https://docs.blesta.com/5/developers/api ("Errors"), status and body as printed there. */
export const BLESTA_ERRORS = {
  unauthorized: { status: 401, body: { message: 'The authorization details given appear to be invalid.' } },
  notAccessible: { status: 403, body: { message: 'The requested resource is not accessible.' } },
  notFound: { status: 404, body: { message: 'The requested resource does not exist.' } },
  unexpected: { status: 500, body: { message: 'An unexpected error occured.' } },
  maintenance: {
    status: 503,
    body: { message: 'The requested resource is currently unavailable due to maintenance.' },
  },
};

// -------------------------------------------------------------------------------------------------- HostBill

/** Verbatim: the response of https://api2.hostbillapp.com/services/getOrderPages.html */
export const HOSTBILL_GETORDERPAGES_EXAMPLE = {
  success: true,
  categories: [
    {
      id: '43',
      name: 'OnApp tests',
      description: '',
      visible: '1',
      sort_order: '0',
      template: 'dedicated',
      ctype: 'wizard',
      ptype: 'onappcloud',
      lptype: 'onappcloud',
      otype: 'wizard_dedicated',
      products: '7',
      ptype_id: '9',
    },
    {
      id: '6',
      name: 'Shared Hosting',
      description: '',
      visible: '1',
      sort_order: '4',
      template: 'default',
      ctype: 'wizard',
      ptype: 'Shared',
      lptype: 'shared',
      otype: 'wizard_default',
      products: '4',
      ptype_id: '1',
    },
  ],
  call: 'getOrderPages',
  server_time: 1317712828,
};

/** Verbatim: the response of https://api2.hostbillapp.com/services/getProducts.html (for order page 43) */
export const HOSTBILL_GETPRODUCTS_EXAMPLE = {
  success: true,
  products: {
    '236': {
      id: '236',
      type: '9',
      name: 'VPS-1024-w-sliders',
      stock: '0',
      paytype: 'Free',
      description: '',
      m_setup: '0.00',
      q_setup: '0.00',
      s_setup: '0.00',
      a_setup: '0.00',
      b_setup: '0.00',
      t_setup: '0.00',
      d_setup: '0.00',
      w_setup: '0.00',
      h_setup: '0.00',
      m: '30.00',
      q: '0.00',
      a: '0.00',
      s: '0.00',
      b: '0.00',
      t: '0.00',
      d: '0.00',
      w: '0.00',
      h: '0.00',
      qty: '0',
      visible: '1',
      ptype: 'onappcloud',
      accounts: '1',
    },
    '235': {
      id: '235',
      type: '9',
      name: 'VPS-512-w-sliders',
      stock: '0',
      paytype: 'Regular',
      description: '',
      m_setup: '0.00',
      q_setup: '0.00',
      s_setup: '0.00',
      a_setup: '0.00',
      b_setup: '0.00',
      t_setup: '0.00',
      d_setup: '0.00',
      w_setup: '0.00',
      h_setup: '0.00',
      m: '20.00',
      q: '0.00',
      a: '0.00',
      s: '0.00',
      b: '0.00',
      t: '0.00',
      d: '0.00',
      w: '0.00',
      h: '0.00',
      qty: '0',
      visible: '1',
      ptype: 'onappcloud',
      accounts: '3',
    },
  },
  call: 'getProducts',
  server_time: 1317712858,
};

type HostbillCycle = 'm' | 'q' | 's' | 'a' | 'b' | 't' | 'd' | 'w' | 'h';

/** A product in getProducts' shape (https://api2.hostbillapp.com/services/getProducts.html): "0.00" where not sold. */
function hostbillProduct(
  fields: { id: string; name: string; paytype: string; description: string; visible: string; ptype: string },
  prices: Partial<Record<HostbillCycle, [string, string]>>,
) {
  const cycles: HostbillCycle[] = ['m', 'q', 's', 'a', 'b', 't', 'd', 'w', 'h'];
  const price = (c: HostbillCycle) => prices[c] ?? ['0.00', '0.00'];
  return {
    id: fields.id,
    type: '1',
    name: fields.name,
    stock: '0',
    paytype: fields.paytype,
    description: fields.description,
    ...Object.fromEntries(cycles.map((c) => [`${c}_setup`, price(c)[1]])),
    ...Object.fromEntries(cycles.map((c) => [c, price(c)[0]])),
    qty: '0',
    visible: fields.visible,
    ptype: fields.ptype,
    accounts: '2',
  };
}

/** Order page 6 ("Shared Hosting") in getProducts' shape (https://api2.hostbillapp.com/services/getProducts.html). */
export const HOSTBILL_SHARED_PRODUCTS = {
  success: true,
  products: {
    '301': hostbillProduct(
      {
        id: '301',
        name: 'Hosting Mini',
        paytype: 'Regular',
        description:
          '<ul><li>5 GB SSD storage</li><li>1 website</li><li>Let&#39;s Encrypt</li></ul><p>Data center: Amsterdam, Netherlands</p>',
        visible: '1',
        ptype: 'cpanel',
      },
      { m: ['3.00', '1.00'], a: ['30.00', '0.00'] },
    ),
    '302': hostbillProduct(
      { id: '302', name: 'Hosting Archive', paytype: 'Regular', description: '', visible: '-1', ptype: 'cpanel' },
      { m: ['2.00', '0.00'] },
    ),
  },
  call: 'getProducts',
  server_time: 1317712860,
};

/** The error shape of https://api2.hostbillapp.com/remote.html ("Errors"). */
export const hostbillError = (call: string, message: string) => ({
  success: false,
  call,
  server_time: 1679594592,
  error: [message],
});
