// What a plan's stock says to a visitor: "Sold out", "Only N left" when few are (FEW_LEFT_MAX), and nothing when
// plenty are or the provider does not count them.
import { FEW_LEFT_MAX } from '../catalog/limits.js';
import { html, type Html } from './html.js';

/** The stock as words: "Sold out", "Only 3 left", "In stock" (more than FEW_LEFT_MAX), or null when not tracked. */
export function stockText(stock: number | null): string | null {
  if (stock === null) return null;
  if (stock === 0) return 'Sold out';
  return stock <= FEW_LEFT_MAX ? `Only ${stock} left` : 'In stock';
}

/** The mark a card, a table row and a plan's page carry: sold out or few left; nothing otherwise. */
export function stockMark(product: { stock: number | null }): Html | '' {
  const { stock } = product;
  if (stock === null || stock > FEW_LEFT_MAX) return '';
  return stock === 0
    ? html`<span class="sold-out">Sold out</span>`
    : html`<span class="few-left">Only ${String(stock)} left</span>`;
}

/** The mark as a paragraph of a card or a plan's page, or nothing. */
export function stockLine(product: { stock: number | null }): Html | '' {
  const mark = stockMark(product);
  return mark === '' ? '' : html`<p>${mark}</p>\n`;
}
