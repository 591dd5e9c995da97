// The content fingerprint: "content differs" (contract section 2) is "fingerprints differ".

import { hash } from 'node:crypto';
import type { NormalizedProduct } from './types.js';

// The canonical form is self-delimiting without escaping (about twice as fast as JSON.stringify of the same
// fields, which matters at 50 000 products per sync):
//   string  <UTF-16 length>:<the string>      null  ~
//   number  <String(n)>;                      list  #<count>; then its items
// Fields come in a fixed order, so each position's type is known and no two products share a serialization.
// Specs are [key, value] pairs sorted by key: key order carries no meaning. Tiers keep their order: it is content.

/** One serialization of every content field of a normalized product (all but external_id and fingerprint). */
export function canonicalProduct(p: Omit<NormalizedProduct, 'fingerprint'>): string {
  let out = p.name.length + ':' + p.name + p.category.length + ':' + p.category + p.price + ';';
  out += p.currency.length + ':' + p.currency;
  out += p.description === null ? '~' : p.description.length + ':' + p.description;

  if (p.specs === null) {
    out += '~';
  } else {
    const keys = sortKeys(Object.keys(p.specs));
    out += '#' + keys.length + ';';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const value = p.specs[key]!;
      out += key.length + ':' + key + value.length + ':' + value;
    }
  }

  if (p.pricing_tiers === null) {
    out += '~';
  } else {
    out += '#' + p.pricing_tiers.length + ';';
    for (let i = 0; i < p.pricing_tiers.length; i++) {
      const tier = p.pricing_tiers[i]!;
      out += tier.period.length + ':' + tier.period + tier.price + ';';
    }
  }

  out += p.setup_fee === null ? '~' : p.setup_fee + ';';
  out += p.contract_duration === null ? '~' : p.contract_duration.length + ':' + p.contract_duration;
  out += canonicalList(p.features) + canonicalList(p.datacenter_locations);
  return out;
}

/** Code-unit order, like Array#sort; insertion sort because specs are small and sort()'s setup dominates there. */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

function canonicalList(list: readonly string[] | null): string {
  if (list === null) return '~';
  let out = '#' + list.length + ';';
  for (let i = 0; i < list.length; i++) {
    const item = list[i]!;
    out += item.length + ':' + item;
  }
  return out;
}

/**
 * SHA-1 is enough here: a fingerprint is only compared with the same host's previous fingerprint of the same
 * product, so a crafted collision could only hide the host's own update from itself.
 */
export function fingerprintOf(canonical: string): string {
  return hash('sha1', canonical, 'base64');
}
