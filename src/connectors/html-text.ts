// Billing systems keep product descriptions as HTML (WHMCS, HostBill, Blesta's description_html) or as plain text
// with line breaks. The directory shows text, so a description is reduced to text here: tags dropped, entities
// decoded, block elements and <br> turned into line breaks, list items into "- " lines, script and style left out.
//
// One pass over the input, each character looked at a bounded number of times: a description is data from outside,
// and no input (a million "<a '" in a row, say) may make this slow. The only regular expressions are single-pass
// ones with no nested repetition.

/** Elements whose start and end break the line (a "soft" break: several in a row make one). */
const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);

/** Elements whose content is not text a reader sees. */
const HIDDEN_CONTENT: ReadonlySet<string> = new Set(['script', 'style', 'template', 'noscript', 'head', 'title']);

/** Cells of a row are kept apart by a space. */
const CELL_ELEMENTS: ReadonlySet<string> = new Set(['td', 'th']);

/**
 * The named character references billing systems' editors actually write (the HTML standard has over two
 * thousand; an unknown one is kept as written, which is what a reader would see in plain text anyway).
 */
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', '\u00a0'],
  ['copy', '©'],
  ['reg', '®'],
  ['trade', '™'],
  ['euro', '€'],
  ['pound', '£'],
  ['yen', '¥'],
  ['cent', '¢'],
  ['curren', '¤'],
  ['sect', '§'],
  ['para', '¶'],
  ['deg', '°'],
  ['plusmn', '±'],
  ['times', '×'],
  ['divide', '÷'],
  ['micro', 'µ'],
  ['middot', '·'],
  ['bull', '•'],
  ['hellip', '…'],
  ['ndash', '–'],
  ['mdash', '—'],
  ['lsquo', '‘'],
  ['rsquo', '’'],
  ['sbquo', '‚'],
  ['ldquo', '“'],
  ['rdquo', '”'],
  ['bdquo', '„'],
  ['laquo', '«'],
  ['raquo', '»'],
  ['lsaquo', '‹'],
  ['rsaquo', '›'],
  ['prime', '′'],
  ['Prime', '″'],
  ['sup1', '¹'],
  ['sup2', '²'],
  ['sup3', '³'],
  ['frac14', '¼'],
  ['frac12', '½'],
  ['frac34', '¾'],
  ['larr', '←'],
  ['rarr', '→'],
  ['uarr', '↑'],
  ['darr', '↓'],
  ['harr', '↔'],
  ['check', '✓'],
  ['cross', '✗'],
  ['infin', '∞'],
  ['le', '≤'],
  ['ge', '≥'],
  ['ne', '≠'],
  ['asymp', '≈'],
  ['minus', '−'],
  ['shy', ''],
  ['zwj', '\u200d'],
  ['zwnj', '\u200c'],
  ['ensp', ' '],
  ['emsp', ' '],
  ['thinsp', ' '],
  ['iexcl', '¡'],
  ['iquest', '¿'],
  ['ordf', 'ª'],
  ['ordm', 'º'],
  ['not', '¬'],
  ['macr', '¯'],
  ['acute', '´'],
  ['cedil', '¸'],
  ['uml', '¨'],
  ['szlig', 'ß'],
  ['Agrave', 'À'],
  ['Aacute', 'Á'],
  ['Acirc', 'Â'],
  ['Atilde', 'Ã'],
  ['Auml', 'Ä'],
  ['Aring', 'Å'],
  ['AElig', 'Æ'],
  ['Ccedil', 'Ç'],
  ['Egrave', 'È'],
  ['Eacute', 'É'],
  ['Ecirc', 'Ê'],
  ['Euml', 'Ë'],
  ['Igrave', 'Ì'],
  ['Iacute', 'Í'],
  ['Icirc', 'Î'],
  ['Iuml', 'Ï'],
  ['ETH', 'Ð'],
  ['Ntilde', 'Ñ'],
  ['Ograve', 'Ò'],
  ['Oacute', 'Ó'],
  ['Ocirc', 'Ô'],
  ['Otilde', 'Õ'],
  ['Ouml', 'Ö'],
  ['Oslash', 'Ø'],
  ['Ugrave', 'Ù'],
  ['Uacute', 'Ú'],
  ['Ucirc', 'Û'],
  ['Uuml', 'Ü'],
  ['Yacute', 'Ý'],
  ['THORN', 'Þ'],
  ['agrave', 'à'],
  ['aacute', 'á'],
  ['acirc', 'â'],
  ['atilde', 'ã'],
  ['auml', 'ä'],
  ['aring', 'å'],
  ['aelig', 'æ'],
  ['ccedil', 'ç'],
  ['egrave', 'è'],
  ['eacute', 'é'],
  ['ecirc', 'ê'],
  ['euml', 'ë'],
  ['igrave', 'ì'],
  ['iacute', 'í'],
  ['icirc', 'î'],
  ['iuml', 'ï'],
  ['eth', 'ð'],
  ['ntilde', 'ñ'],
  ['ograve', 'ò'],
  ['oacute', 'ó'],
  ['ocirc', 'ô'],
  ['otilde', 'õ'],
  ['ouml', 'ö'],
  ['oslash', 'ø'],
  ['ugrave', 'ù'],
  ['uacute', 'ú'],
  ['ucirc', 'û'],
  ['uuml', 'ü'],
  ['yacute', 'ý'],
  ['thorn', 'þ'],
  ['yuml', 'ÿ'],
  ['OElig', 'Œ'],
  ['oelig', 'œ'],
  ['Scaron', 'Š'],
  ['scaron', 'š'],
  ['Yuml', 'Ÿ'],
  ['fnof', 'ƒ'],
  ['alpha', 'α'],
  ['beta', 'β'],
  ['gamma', 'γ'],
  ['delta', 'δ'],
  ['mu', 'μ'],
  ['pi', 'π'],
  ['Omega', 'Ω'],
]);

/** The longest reference read after '&' ("&#x0010FFFF;" and every name above fit). */
const MAX_REFERENCE_LENGTH = 32;

/** Markers written between text while scanning; text never holds them, since input line breaks are replaced. */
const SOFT_BREAK = '\n';
const HARD_BREAK = '\r';

/** A description as plain text: HTML reduced to text, or plain text kept line by line. Never throws. */
export function htmlToText(input: string): string {
  const scanned = looksLikeHtml(input) ? scanHtml(input) : scanPlainText(input);
  return assembleLines(scanned);
}

/** A one-line text (a product name): entities decoded, tags dropped, every break a space. */
export function htmlToLine(input: string): string {
  return htmlToText(input).replace(/\s+/g, ' ').trim();
}

/** Whether the text holds a tag, a comment or a closing tag: '<' then a letter, '/' or '!'. */
function looksLikeHtml(input: string): boolean {
  for (let i = input.indexOf('<'); i !== -1 && i < input.length - 1; i = input.indexOf('<', i + 1)) {
    const next = input.charCodeAt(i + 1);
    if (isAsciiLetter(next) || next === 0x2f /* / */ || next === 0x21 /* ! */) return true;
  }
  return false;
}

/** Plain text: its own line breaks are kept (as billing systems show them), entities decoded. */
function scanPlainText(input: string): string {
  let out = '';
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c === '&') {
      const [text, next] = readReference(input, i);
      out += text;
      i = next;
    } else if (c === '\r') {
      out += HARD_BREAK;
      i += input[i + 1] === '\n' ? 2 : 1;
    } else if (c === '\n') {
      out += HARD_BREAK;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** HTML: whitespace collapses, elements decide the breaks. */
function scanHtml(input: string): string {
  const lower = input.toLowerCase();
  let out = '';
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c === '<') {
      const next = input.charCodeAt(i + 1);
      if (input.startsWith('<!--', i)) {
        const end = input.indexOf('-->', i + 4);
        i = end === -1 ? input.length : end + 3;
        continue;
      }
      if (next === 0x21 /* ! */ || next === 0x3f /* ? */) {
        // <!DOCTYPE …>, <![CDATA[ … ]]> or <?xml …?>: markup, not text.
        const end = input.indexOf('>', i + 2);
        i = end === -1 ? input.length : end + 1;
        continue;
      }
      const closing = next === 0x2f; /* / */
      const nameStart = closing ? i + 2 : i + 1;
      if (!isAsciiLetter(input.charCodeAt(nameStart))) {
        out += '<'; // "a < b", "<3": text
        i++;
        continue;
      }
      let nameEnd = nameStart;
      while (nameEnd < input.length && isTagNameChar(input.charCodeAt(nameEnd))) nameEnd++;
      const name = lower.slice(nameStart, nameEnd);
      const tagEnd = endOfTag(input, nameEnd);
      // A tag never closed runs to the end of the input, which is dropped, as a browser does.
      i = tagEnd === -1 ? input.length : tagEnd + 1;
      if (!closing && HIDDEN_CONTENT.has(name)) {
        const end = lower.indexOf(`</${name}`, i);
        if (end === -1) break;
        const after = input.indexOf('>', end);
        i = after === -1 ? input.length : after + 1;
        continue;
      }
      out += breakFor(name, closing);
      continue;
    }
    if (c === '&') {
      const [text, next] = readReference(input, i);
      out += text;
      i = next;
      continue;
    }
    out += isHtmlSpace(input.charCodeAt(i)) ? ' ' : c;
    i++;
  }
  return out;
}

/** What an element's start or end tag contributes to the text. */
function breakFor(name: string, closing: boolean): string {
  if (name === 'br') return HARD_BREAK;
  if (name === 'li' && !closing) return `${SOFT_BREAK}- `;
  if (BLOCK_ELEMENTS.has(name)) return SOFT_BREAK;
  if (CELL_ELEMENTS.has(name)) return ' ';
  return '';
}

/** The index of the '>' ending a tag whose attributes start at `from`, skipping quoted values; -1 if none. */
function endOfTag(input: string, from: number): number {
  let quote = 0;
  for (let i = from; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) {
      quote = c;
    } else if (c === 0x3e /* > */) {
      return i;
    }
  }
  return -1;
}

/** A character reference at `at` ('&'): its text and the index after it; a lone '&' is itself. */
function readReference(input: string, at: number): [string, number] {
  const limit = Math.min(input.length, at + 1 + MAX_REFERENCE_LENGTH);
  let end = at + 1;
  while (end < limit && isReferenceChar(input.charCodeAt(end))) end++;
  if (end >= input.length || input[end] !== ';' || end === at + 1) return ['&', at + 1];
  const body = input.slice(at + 1, end);
  if (body[0] === '#') {
    const hex = body[1] === 'x' || body[1] === 'X';
    const digits = body.slice(hex ? 2 : 1);
    const valid =
      digits.length > 0 && digits.length <= 8 && [...digits].every((d) => (hex ? isHexDigit(d) : isDigit(d)));
    if (!valid) return ['&', at + 1];
    return [fromCodePoint(Number.parseInt(digits, hex ? 16 : 10)), end + 1];
  }
  const named = NAMED_ENTITIES.get(body);
  return named === undefined ? [input.slice(at, end + 1), end + 1] : [named, end + 1];
}

/** As the HTML standard reads a numeric reference: NUL, surrogates and values past Unicode become U+FFFD. */
function fromCodePoint(code: number): string {
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(code);
}

/**
 * The scanned text as lines: spaces collapsed and trimmed, soft breaks making at most one line break, hard breaks
 * (<br>, a plain text's own newlines) each one, never more than one empty line in a row, control characters
 * dropped, and no UTF-16 surrogate without its pair.
 */
function assembleLines(scanned: string): string {
  const lines: string[] = [];
  let current = '';
  const endLine = (hard: boolean) => {
    const line = current.replace(/ {2,}/g, ' ').trim();
    current = '';
    if (line !== '' || hard) lines.push(line);
  };
  for (const ch of scanned) {
    if (ch === SOFT_BREAK) endLine(false);
    else if (ch === HARD_BREAK) endLine(true);
    else current += isDroppedCharacter(ch) ? (ch === '\t' ? ' ' : '') : ch === '\u00a0' ? ' ' : ch;
  }
  endLine(false);
  const kept: string[] = [];
  for (const line of lines) {
    if (line === '' && (kept.length === 0 || kept[kept.length - 1] === '')) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return kept.join('\n');
}

/** C0 and C1 controls, and a UTF-16 surrogate without its pair (`for … of` yields those alone). */
function isDroppedCharacter(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff) return true;
  return c < 0x20 || (c >= 0x7f && c <= 0x9f);
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isTagNameChar(c: number): boolean {
  return isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d /* - */ || c === 0x3a; /* : */
}

function isReferenceChar(c: number): boolean {
  return isAsciiLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x23; /* # */
}

function isHtmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

function isDigit(d: string): boolean {
  return d >= '0' && d <= '9';
}

function isHexDigit(d: string): boolean {
  return isDigit(d) || (d >= 'a' && d <= 'f') || (d >= 'A' && d <= 'F');
}
