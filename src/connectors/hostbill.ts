// HostBill's order pages and products read into BillingProducts, from its admin API
// (https://api2.hostbillapp.com/remote.html): every call is a POST to admin/api.php with `call`, `api_id` and
// `api_key`; an error is {"success": false, "error": ["…"]}.
// - getOrderPages (https://api2.hostbillapp.com/services/getOrderPages.html): {"success": true, "categories":
//   [{"id", "name", "visible", …}]}
// - getSubCategories (https://api2.hostbillapp.com/services/getSubCategories.html): the same under
//   "subcategories", for an order page whose "contains" is "categories"
// - getProducts&id=ORDERPAGE (https://api2.hostbillapp.com/services/getProducts.html): {"success": true,
//   "products": {"236": {"id", "name", "paytype", "description", "m", "q", "s", "a", "b", "t", "d", "w", "h",
//   "m_setup", …, "visible", "ptype"}}}, prices as strings in the system's default currency.
//
// Where the documentation is silent, and what is done:
// - Which cycles are offered: the documented example gives "0.00" for every cycle a product is not sold with, so a
//   cycle is offered when its price is above 0. A product on the "Free" pay type is free whatever its cycles say.
// - A one-time product ("Once"): its price is read from `m`, HostBill's first pricing column.
// - `visible`: 1 visible; getProducts' documented filter names the others (0 hidden, -1 archived, -2 admin only,
//   -3 hidden from unregistered visitors, -4 hidden from direct orders); all of those are left out.
// - The currency is not in the answer: prices are in HostBill's default currency, which --currency names.
// - Specs and locations come from the description alone. A product's configurable form components ("Components >
//   Forms") are read one by one with getProductForm, which needs each component's id, and no documented call lists
//   a product's components (getProductDetails' documented answer has none), so they are not read.
// - Stock: getProducts gives `stock` and `qty` (both "0" in the documented example). `stock` is read as HostBill's
//   "stock control" switch (1 on) and `qty` as the units left under it (0: sold out, which HostBill's order pages
//   hide or show as out of stock); with stock control off, the stock is not tracked (null).

import {
  amountOf,
  BillingAnswerError,
  idOf,
  isObject,
  isYes,
  type JsonObject,
  listOf,
  textOf,
  unitsOf,
} from './answer.js';
import { type BillingProduct, type BillingTier, UNNAMED_CURRENCY } from './catalogue.js';

/** HostBill's cycle letters, shortest first, with the names its order pages show (billing-periods.ts knows both). */
const CYCLES = [
  { key: 'h', period: 'Hourly' },
  { key: 'd', period: 'Daily' },
  { key: 'w', period: 'Weekly' },
  { key: 'm', period: 'Monthly' },
  { key: 'q', period: 'Quarterly' },
  { key: 's', period: 'Semi-Annually' },
  { key: 'a', period: 'Annually' },
  { key: 'b', period: 'Biennially' },
  { key: 't', period: 'Triennially' },
] as const;

const VISIBILITY: Readonly<Record<string, string>> = {
  '0': 'hidden',
  '-1': 'archived',
  '-2': 'for admins only',
  '-3': 'hidden from unregistered visitors',
  '-4': 'hidden from direct orders',
};

export interface HostbillOrderPage {
  id: string;
  name: string | null;
  visible: boolean;
  /** it holds order pages (getSubCategories), not products */
  holdsPages: boolean;
}

/** The errors of an answer with "success": false, joined; null for any other answer. */
export function hostbillRefusal(answer: unknown): string | null {
  if (!isObject(answer) || !('success' in answer) || isYes(answer.success)) return null;
  const errors = (listOf(answer.error) ?? (typeof answer.error === 'string' ? [answer.error] : [])).filter(
    (e): e is string => typeof e === 'string' && e.trim() !== '',
  );
  return errors.length === 0 ? '(HostBill gave no message)' : errors.join('; ');
}

function succeeded(answer: unknown, call: string): JsonObject {
  if (!isObject(answer) || !isYes(answer.success))
    throw new BillingAnswerError(`HostBill answered ${call} without "success": true`);
  return answer;
}

/** The order pages of a getOrderPages ("categories") or getSubCategories ("subcategories") answer. */
export function hostbillOrderPages(answer: unknown, call: 'getOrderPages' | 'getSubCategories'): HostbillOrderPage[] {
  const key = call === 'getOrderPages' ? 'categories' : 'subcategories';
  const value = succeeded(answer, call)[key];
  const list = value === undefined || value === null ? [] : listOf(value);
  if (list === null) throw new BillingAnswerError(`HostBill answered ${call} with "${key}" that is not a list`);
  return list.map((page, index) => {
    const id = isObject(page) ? idOf(page.id) : null;
    if (id === null)
      throw new BillingAnswerError(`HostBill answered ${call} with an order page (${index}) without an id`);
    const p = page as JsonObject;
    return {
      id,
      name: textOf(p.name)?.trim() ?? null,
      visible: p.visible === undefined || String(p.visible).trim() === '1',
      holdsPages: p.contains === 'categories',
    };
  });
}

/** The products of a getProducts answer for one order page. */
export function hostbillProducts(answer: unknown, page: HostbillOrderPage): BillingProduct[] {
  const value = succeeded(answer, `getProducts for order page ${page.id}`).products;
  const list = value === undefined || value === null || value === '' ? [] : listOf(value);
  if (list === null)
    throw new BillingAnswerError(
      `HostBill answered getProducts for order page ${page.id} with "products" that is not a list`,
    );
  return list.map((item, index) => {
    const id = isObject(item) ? idOf(item.id) : null;
    if (id === null)
      throw new BillingAnswerError(
        `HostBill answered getProducts for order page ${page.id} with a product (${index}) without an id`,
      );
    return productOf(id, item as JsonObject, page);
  });
}

function productOf(id: string, item: JsonObject, page: HostbillOrderPage): BillingProduct {
  const paytype = typeof item.paytype === 'string' ? item.paytype.trim().toLowerCase() : 'regular';
  const notes: string[] = [];
  const visible = item.visible === undefined ? '1' : String(item.visible).trim();
  const offSale = !page.visible
    ? `its order page ${page.name === null ? page.id : JSON.stringify(page.name)} is not visible in HostBill`
    : visible !== '1'
      ? `${VISIBILITY[visible] ?? `visibility ${visible}`} in HostBill`
      : null;
  return {
    id,
    name: typeof item.name === 'string' ? item.name : '',
    description: textOf(item.description),
    groups: [{ id: page.id, name: page.name }],
    module: textOf(item.ptype)?.trim() ?? null,
    offSale,
    free: paytype === 'free',
    pricing: paytype === 'free' ? new Map() : new Map([[UNNAMED_CURRENCY, tiersOf(item, paytype === 'once', notes)]]),
    options: [],
    notes,
    stock: isYes(item.stock) ? unitsOf(item.qty) : null,
  };
}

function tiersOf(item: JsonObject, oneTime: boolean, notes: string[]): BillingTier[] {
  const cycles = oneTime ? [{ key: 'm', period: 'Once' }] : CYCLES;
  const tiers: BillingTier[] = [];
  for (const cycle of cycles) {
    const raw = item[cycle.key];
    if (raw === undefined || raw === null) continue;
    const price = amountOf(raw);
    if (price === null) {
      notes.push(`the ${cycle.period} price (${JSON.stringify(raw)}) is not an amount; that cycle is left out`);
      continue;
    }
    if (oneTime ? price < 0 : price <= 0) continue;
    const setupFee = amountOf(item[`${cycle.key}_setup`]);
    tiers.push({ period: cycle.period, price, setupFee: setupFee !== null && setupFee >= 0 ? setupFee : null });
  }
  return tiers;
}
