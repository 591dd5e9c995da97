// A host's profile on its page, and the order link on a product's page. Links come only from URLs the profile's
// checks accepted (https, no credentials); they are marked nofollow, and open nothing with a handle on this page.
import { countryName } from '../catalog/host-profile.js';
import type { PricedProduct } from '../http/listed-prices.js';
import type { ListedHost } from '../store/directory/listed-hosts.js';
import { html, type Html } from './html.js';

export function hostProfile(host: ListedHost): Html {
  const facts = [
    host.country ? html`Based in ${countryName(host.country)}` : '',
    host.website ? html`<a href="${host.website}" rel="nofollow noopener">${displayUrl(host.website)}</a>` : '',
  ].filter((fact) => fact !== '');
  return html`${host.description ? html`<p class="description">${host.description}</p>` : ''}
${facts.length > 0 ? html`<p>${facts.map((fact, k) => html`${k > 0 ? ' · ' : ''}${fact}`)}</p>` : ''}`;
}

/** "example.com/hosting" for https://www.example.com/hosting/. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/$/, '');
  return `${parsed.host.replace(/^www\./, '')}${path}`;
}

export function orderLink(product: PricedProduct): Html | '' {
  if (product.order_url === null) return '';
  return html`<p><a class="button" href="${product.order_url}" rel="nofollow noopener">Order at ${product.host.name}</a></p>`;
}
