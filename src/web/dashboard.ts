// A provider's dashboard: where it stands, its keys, its syncs, its profile, the preview of its listing, its people
// and its audit record. Every form carries its CSRF token; nothing needs script.
import { countryName } from '../catalog/host-profile.js';
import type { ApiKey, IssuedApiKey } from '../store/api-keys.js';
import type { AuditEvent, HostDomain, Person, SignedIn } from '../store/accounts.js';
import type { Host } from '../store/hosts.js';
import type { Category } from '../store/categories.js';
import type { PricedProduct } from '../http/listed-prices.js';
import type { RefusalReport, RunActions, SyncRunRecord } from '../store/sync-runs.js';
import { WELL_KNOWN_PATH } from '../accounts/domain-proof.js';
import { csrfField, errorSummary, type FieldError } from './accounts.js';
import { html, type Html } from './html.js';
import { layout } from './layout.js';
import type { PriceDisplay } from './prices.js';
import { productCard } from './result-list.js';

const STYLE = html`<style>
.dash-nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:0 0 1rem}
.dash-nav a[aria-current=page]{font-weight:700;color:#1b1f24}
.failed{background:#fdecec;border:2px solid #8a1c1c;border-radius:.5rem;padding:.5rem 1rem;margin:0 0 1rem;color:#5c1010}
.ok{background:#e3f4e8;border:1px solid #14532d;border-radius:.5rem;padding:.5rem 1rem;margin:0 0 1rem;color:#14532d}
code.token{display:inline-block;background:#fff;border:1px solid #6b7380;padding:.2rem .4rem;overflow-wrap:anywhere}
.form-field{display:flex;flex-direction:column;gap:.2rem;max-width:40rem}.form-field input,.form-field textarea{width:100%}
.field-error{color:#8a1c1c;font-weight:600}.inline{display:inline}table.dash th{width:auto}
</style>`;

const SECTIONS = [
  ['/providers/dashboard', 'Overview'],
  ['/providers/keys', 'API keys'],
  ['/providers/syncs', 'Syncs'],
  ['/providers/profile', 'Profile'],
  ['/providers/preview', 'Preview'],
  ['/providers/people', 'People'],
  ['/providers/audit', 'Audit log'],
] as const;

export type Section = (typeof SECTIONS)[number][0];

function frame(person: SignedIn, csrf: string, section: Section, title: string, content: Html): Html {
  return layout(
    { title: `${title} · ${person.hostName}` },
    html`${STYLE}<nav class="dash-nav" aria-label="Dashboard"><ul>${SECTIONS.map(
      ([href, label]) =>
        html`<li><a href="${href}"${section === href ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}<li><form class="inline" method="post" action="/providers/sign-out">${csrfField(csrf)}<button type="submit">Sign out</button></form></li></ul></nav>
<p class="muted">${person.hostName} · signed in as ${person.email}</p>
${content}`,
  );
}

function when(isoDate: string | null): Html | string {
  if (!isoDate) return '—';
  return html`<time datetime="${isoDate}">${isoDate.replace('T', ' ').slice(0, 16)} UTC</time>`;
}

/** Where the provider stands: its listing, its domain proof, and whether its last sync failed. */
export interface Overview {
  host: Host;
  domain: HostDomain | null;
  lastRun: SyncRunRecord | null;
  lastRefusal: RefusalReport | null;
  activeKeys: number;
}

function listingState(view: Overview): Html {
  const { host, domain } = view;
  if (host.status === 'suspended')
    return html`<p class="failed">Your listing is suspended: visitors do not see it. Write to the directory's operator.</p>`;
  if (host.status === 'active')
    return html`<p class="ok">Your listing is public: <a href="/hosts/${host.slug}">see it as visitors do</a>.</p>`;
  if (domain?.verified_at && domain.approval === 'pending')
    return html`<p class="notice">Your domain is proved. The directory's operator approves new providers before they are listed; you may create keys and sync meanwhile.</p>`;
  return html`<p class="notice">Your listing is not public yet: prove that ${domain?.domain ?? 'your domain'} is yours (below).</p>`;
}

function lastSyncFailed(view: Overview): boolean {
  if (!view.lastRefusal) return false;
  return !view.lastRun || view.lastRefusal.refused_at > view.lastRun.applied_at;
}

export function overviewPage(person: SignedIn, csrf: string, view: Overview): Html {
  const { domain } = view;
  const failed = lastSyncFailed(view)
    ? html`<div class="failed" role="alert"><h2>Your last sync failed</h2><p>${when(view.lastRefusal!.refused_at)}: ${view.lastRefusal!.detail}. <a href="/providers/syncs">See every error</a>.</p></div>`
    : '';
  const proof = domain
    ? domain.verified_at
      ? html`<h2>Domain</h2><p>${domain.domain} is proved (${when(domain.verified_at)}).</p>`
      : html`<h2>Prove your domain</h2>
<p>Publish this token in one of two places, then check:</p>
<p><code class="token" id="domain-token">${domain.token}</code></p>
<ul><li>a DNS TXT record at <code>_hostdir.${domain.domain}</code>, or</li>
<li>a file at <code>https://${domain.domain}${WELL_KNOWN_PATH}</code> holding the token on a line of its own.</li></ul>
${domain.check_result ? html`<p class="notice">Last check (${when(domain.checked_at)}): ${domain.check_result}</p>` : ''}
<form method="post" action="/providers/domain/check">${csrfField(csrf)}<button type="submit">Check my domain</button></form>`
    : '';
  const run = view.lastRun;
  return frame(
    person,
    csrf,
    '/providers/dashboard',
    'Overview',
    html`<h1>${person.hostName}</h1>
${failed}
${listingState(view)}
${proof}
<h2>Syncs</h2>
<p>${run ? html`Last applied sync ${when(run.applied_at)}: ${run.summary.received} received, ${run.summary.created} created, ${run.summary.updated} updated, ${run.summary.deactivated} deactivated. <a href="/providers/syncs">Every sync</a>.` : 'No sync yet.'}</p>
<h2>API keys</h2>
<p>${view.activeKeys} active key(s). <a href="/providers/keys">Manage keys</a>.</p>`,
  );
}

export function keysPage(
  person: SignedIn,
  csrf: string,
  keys: ApiKey[],
  options: { issued?: IssuedApiKey; errors?: FieldError[]; canCreate: string | null },
): Html {
  const issued = options.issued
    ? html`<div class="ok" role="status"><h2>Your new key</h2><p>Copy it now: it is shown only this once.</p><p><code class="token" id="new-key">${options.issued.key}</code></p></div>`
    : '';
  const rows = keys.map(
    (
      key,
    ) => html`<tr><td>${key.name ?? '—'}</td><td><code>rk_${key.prefix}…</code></td><td>${key.status}</td><td>${when(key.created_at)}</td><td>${when(key.last_used_at)}</td>
<td>${key.status === 'active' ? html`<form method="post" action="/providers/keys/${key.id}/revoke">${csrfField(csrf)}<button type="submit" aria-label="Revoke key ${key.name ?? key.prefix}">Revoke</button></form>` : when(key.revoked_at)}</td></tr>`,
  );
  return frame(
    person,
    csrf,
    '/providers/keys',
    'API keys',
    html`<h1>API keys</h1>${issued}
<p>Your billing system sends its catalogue with a key (<code>Authorization: Bearer rk_…</code>). Two keys may be active at
once: create the new one, put it in the billing system, then revoke the old one.</p>
${keys.length > 0 ? html`<div class="scroll" tabindex="0" role="region" aria-label="Your API keys"><table class="dash"><caption class="visually-hidden">Your API keys</caption><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Revoke</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>No key yet.</p>`}
<h2>Create a key</h2>
${errorSummary(options.errors ?? [])}
${
  options.canCreate === null
    ? html`<form method="post" action="/providers/keys">${csrfField(csrf)}<p class="form-field"><label for="name">Name</label><span class="muted" id="name-hint">What the key is for, e.g. billing or staging</span><input id="name" name="name" maxlength="100" required aria-describedby="name-hint"></p><p><button type="submit">Create key</button></p></form>`
    : html`<p class="notice">${options.canCreate}</p>`
}`,
  );
}

function summaryCells(run: SyncRunRecord): Html {
  const s = run.summary;
  return html`<td>${s.received}</td><td>${s.created}</td><td>${s.updated}</td><td>${s.unchanged}</td><td>${s.reactivated}</td><td>${s.deactivated}</td>`;
}

export function refusalList(refusals: RefusalReport[]): Html {
  return html`${refusals.map(
    (
      refusal,
    ) => html`<section class="problem" aria-label="Refused sync ${refusal.refused_at}"><h3>${when(refusal.refused_at)} · ${refusal.dry_run ? 'dry run · ' : ''}${refusal.status} ${refusal.code}</h3>
<p>${refusal.detail}</p>
${refusal.errors.length > 0 ? html`<ul>${refusal.errors.map((error) => html`<li><code>${error.pointer ?? (error as { parameter?: string }).parameter ?? ''}</code> ${error.code ?? ''}: ${error.detail ?? ''}</li>`)}</ul>` : ''}</section>`,
  )}`;
}

export function syncsPage(person: SignedIn, csrf: string, runs: SyncRunRecord[], refusals: RefusalReport[]): Html {
  return frame(
    person,
    csrf,
    '/providers/syncs',
    'Syncs',
    html`<h1>Syncs</h1>
<h2>Runs</h2>
${
  runs.length > 0
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="Sync runs, newest first"><table class="dash"><caption class="visually-hidden">Sync runs, newest first</caption><thead><tr><th scope="col">Run</th><th scope="col">Kind</th><th scope="col">Received</th><th scope="col">Created</th><th scope="col">Updated</th><th scope="col">Unchanged</th><th scope="col">Reactivated</th><th scope="col">Deactivated</th></tr></thead>
<tbody>${runs.map((run) => html`<tr><td><a href="/providers/syncs/${run.sync_id}">${when(run.applied_at)}</a></td><td>${run.dry_run ? 'dry run' : 'applied'}</td>${summaryCells(run)}</tr>`)}</tbody></table></div>`
    : html`<p>No run yet.</p>`
}
<h2>Refused syncs</h2>
${refusals.length > 0 ? refusalList(refusals) : html`<p>None.</p>`}`,
  );
}

export function runPage(person: SignedIn, csrf: string, run: SyncRunRecord & RunActions): Html {
  const list = (title: string, items: { external_id: string; id: string }[]) =>
    html`<h2>${title} (${items.length})</h2>${items.length > 0 ? html`<ul>${items.map((item) => html`<li><code>${item.external_id}</code></li>`)}</ul>` : html`<p>None.</p>`}`;
  const of = (action: string) => run.products.filter((p) => p.action === action);
  return frame(
    person,
    csrf,
    '/providers/syncs',
    'Sync run',
    html`<h1>${run.dry_run ? 'Dry run' : 'Sync'} of ${when(run.applied_at)}</h1>
<p class="muted">${run.sync_id} · ${run.duration_ms} ms · ${run.summary.received} received${run.dry_run ? ' · nothing was changed' : ''}</p>
${list('Created', of('created'))}${list('Updated', of('updated'))}${list('Reactivated', of('reactivated'))}${list('Deactivated', run.deactivated)}
<p><a href="/providers/syncs">Every sync</a></p>`,
  );
}

export function profilePage(
  person: SignedIn,
  csrf: string,
  values: Record<string, string>,
  options: { errors?: FieldError[]; saved?: boolean } = {},
): Html {
  const errors = options.errors ?? [];
  const input = (id: string, label: string, hint: string, textarea = false) => {
    const error = errors.find((e) => e.field === id);
    return html`<p class="form-field"><label for="${id}">${label}</label><span class="muted" id="${id}-hint">${hint}</span>${error ? html`<span class="field-error" id="${id}-error">${error.message}</span>` : ''}
${textarea ? html`<textarea id="${id}" name="${id}" rows="4" aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}">${values[id] ?? ''}</textarea>` : html`<input id="${id}" name="${id}" value="${values[id] ?? ''}" aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}">`}</p>`;
  };
  return frame(
    person,
    csrf,
    '/providers/profile',
    'Profile',
    html`<h1>Profile</h1>
${options.saved ? html`<p class="ok" role="status">Saved.</p>` : ''}
${errorSummary(errors)}
<form method="post" action="/providers/profile">${csrfField(csrf)}
${input('website', 'Website', 'An https:// address, shown on your page')}
${input('description', 'Description', 'A few sentences about your company (up to 500 characters)', true)}
${input('country', 'Country', 'Where you are based: two letters, e.g. DE or US')}
${input('order_url_template', 'Order-link template', 'An https:// address holding {external_id}, replaced by each product’s id in your billing system')}
<p><button type="submit">Save profile</button></p></form>
<p>Leave a field empty to clear it. <a href="/providers/preview">Preview your listing</a>.</p>`,
  );
}

export function previewPage(
  person: SignedIn,
  csrf: string,
  host: Host,
  listing: { products: PricedProduct[]; categories: Category[]; prices: PriceDisplay },
): Html {
  const { products, categories, prices } = listing;
  return frame(
    person,
    csrf,
    '/providers/preview',
    'Preview',
    html`<h1>Preview: ${host.name}</h1>
<p class="notice">This is your listing as visitors ${host.status === 'active' ? 'see it' : 'will see it once it is public'}: your profile, and your plans as the directory's cards show them, cheapest first${prices.unconverted.length > 0 ? '' : html`, prices in ${prices.currency}`}.</p>
<section aria-label="Your listing">
<h2>${host.name}</h2>
${host.description ? html`<p class="description">${host.description}</p>` : ''}
<p>${host.country ? html`Based in ${countryName(host.country)}` : ''}${host.country && host.website ? ' · ' : ''}${host.website ? html`<a href="${host.website}" rel="nofollow noopener">${host.website}</a>` : ''}</p>
${
  products.length > 0
    ? html`<ul class="grid">${products.map((product) => productCard(product, categories, prices, false))}</ul>`
    : html`<p>No active product yet: sync your catalogue.</p>`
}
</section>`,
  );
}

export function peoplePage(person: SignedIn, csrf: string, people: Person[], errors: FieldError[] = []): Html {
  return frame(
    person,
    csrf,
    '/providers/people',
    'People',
    html`<h1>People</h1>
<p>Everyone here signs in to this dashboard with a link mailed to their address.</p>
<ul>${people.map((p) => html`<li>${p.email}${p.confirmed_at ? '' : ' (not confirmed yet)'}${p.id === person.personId ? ' (you)' : html` <form class="inline" method="post" action="/providers/people/${p.id}/remove">${csrfField(csrf)}<button type="submit" aria-label="Remove ${p.email}">Remove</button></form>`}</li>`)}</ul>
<h2>Invite someone</h2>
${errorSummary(errors)}
<form method="post" action="/providers/people">${csrfField(csrf)}<p class="form-field"><label for="email">Email address</label><input id="email" name="email" type="email" required autocomplete="off"></p><p><button type="submit">Invite</button></p></form>`,
  );
}

export function auditPage(person: SignedIn, csrf: string, events: AuditEvent[]): Html {
  return frame(
    person,
    csrf,
    '/providers/audit',
    'Audit log',
    html`<h1>Audit log</h1>
${events.length > 0 ? html`<div class="scroll" tabindex="0" role="region" aria-label="Who did what, newest first"><table class="dash"><caption class="visually-hidden">Who did what, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Detail</th></tr></thead><tbody>${events.map((e) => html`<tr><td>${when(e.at)}</td><td>${e.actor}</td><td>${e.action}</td><td>${e.detail ?? ''}</td></tr>`)}</tbody></table></div>` : html`<p>Nothing yet.</p>`}`,
  );
}
