// Where each product of a sync body starts and ends in its UTF-8 bytes, found without parsing them: lets the
// validator parse and normalize one product at a time instead of building the whole body's tree.

/** Item k of the body's `products` array is the bytes json[starts[k], ends[k]). */
export interface ProductExtents {
  starts: number[];
  ends: number[];
}

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The key as the bytes must spell it: an escaped spelling of the same key is left to the whole-body path. */
const PRODUCTS_KEY = new TextEncoder().encode('"products"');

/**
 * The extents of the items of `products`, for a body of exactly the shape {"products": [item, ...]}, with JSON
 * whitespace anywhere between tokens. Null for any other shape: another top-level key (or the same key twice),
 * `products` not an array, a byte-order mark, bytes after the closing brace, an item that does not end.
 *
 * Items are delimited, not checked: an item's bytes are JSON only if JSON.parse says so. When every item is, the
 * whole body is JSON too, and its `products` are those items in order; for JSON, the delimiting is exact.
 */
export function findProductExtents(json: Uint8Array): ProductExtents | null {
  let at = skipWhitespace(json, 0);
  if (json[at] !== OPEN_BRACE) return null;
  at = skipWhitespace(json, at + 1);
  for (let k = 0; k < PRODUCTS_KEY.length; k++) {
    if (json[at + k] !== PRODUCTS_KEY[k]) return null;
  }
  at = skipWhitespace(json, at + PRODUCTS_KEY.length);
  if (json[at] !== COLON) return null;
  at = skipWhitespace(json, at + 1);
  if (json[at] !== OPEN_BRACKET) return null;
  at = skipWhitespace(json, at + 1);

  const extents: ProductExtents = { starts: [], ends: [] };
  if (json[at] === CLOSE_BRACKET) {
    at++;
  } else {
    for (;;) {
      const end = itemEnd(json, at);
      if (end <= at) return null;
      extents.starts.push(at);
      extents.ends.push(end);
      at = skipWhitespace(json, end);
      if (json[at] === CLOSE_BRACKET) {
        at++;
        break;
      }
      if (json[at] !== COMMA) return null;
      at = skipWhitespace(json, at + 1);
    }
  }
  at = skipWhitespace(json, at);
  if (json[at] !== CLOSE_BRACE) return null;
  return skipWhitespace(json, at + 1) === json.length ? extents : null;
}

function isWhitespace(c: number): boolean {
  return c === SPACE || c === LINE_FEED || c === CARRIAGE_RETURN || c === TAB;
}

function skipWhitespace(json: Uint8Array, at: number): number {
  while (at < json.length && isWhitespace(json[at]!)) at++;
  return at;
}

/**
 * Where the item starting at `at` ends: after its closing bracket or quote, or at the comma, whitespace or bracket
 * that ends a bare word or number. -1 when the body ends first. Only strings and nesting are followed: brackets
 * inside strings do not count, and a backslash in a string skips the byte after it (so \" and \\ are whole).
 */
function itemEnd(json: Uint8Array, at: number): number {
  const n = json.length;
  let depth = 0;
  let i = at;
  while (i < n) {
    const c = json[i++]!;
    if (c === QUOTE) {
      for (;;) {
        if (i >= n) return -1;
        const d = json[i++]!;
        if (d === QUOTE) break;
        if (d === BACKSLASH) i++;
      }
      if (depth === 0) return i;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      // At depth 0 this is the array's own end (or a stray brace): a bare word or number ends before it.
      if (depth === 0) return i - 1;
      if (--depth === 0) return i;
    } else if (depth === 0 && (c === COMMA || isWhitespace(c))) {
      return i - 1;
    }
  }
  return -1;
}
