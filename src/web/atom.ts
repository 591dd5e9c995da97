// Atom 1.0 documents (RFC 4287), built as text: every value escaped, characters XML 1.0 cannot carry dropped.

export interface AtomLink {
  href: string;
  rel?: string;
  type?: string;
}

export interface AtomEntry {
  /** an IRI that never changes for this entry */
  id: string;
  title: string;
  /** RFC 3339 */
  updated: string;
  published?: string;
  link: string;
  summary: string;
  categories?: { term: string; label?: string }[];
}

export interface AtomFeed {
  id: string;
  title: string;
  subtitle?: string;
  /** RFC 3339; the newest entry's time, so that an unchanged feed reads the same */
  updated: string;
  author: string;
  links: AtomLink[];
  entries: AtomEntry[];
}

export const ATOM_TYPE = 'application/atom+xml; charset=utf-8';

// XML 1.0 allows tab, line feed, carriage return and U+0020 up, without surrogates (lone ones) and U+FFFE/U+FFFF.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text for XML content or an attribute: escaped, with the characters XML cannot hold removed. */
export function xmlText(value: string): string {
  return value.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function link(l: AtomLink): string {
  return `<link href="${xmlText(l.href)}"${l.rel ? ` rel="${xmlText(l.rel)}"` : ''}${l.type ? ` type="${xmlText(l.type)}"` : ''}/>`;
}

function entry(e: AtomEntry): string {
  return [
    '<entry>',
    `<id>${xmlText(e.id)}</id>`,
    `<title type="text">${xmlText(e.title)}</title>`,
    `<updated>${xmlText(e.updated)}</updated>`,
    e.published ? `<published>${xmlText(e.published)}</published>` : '',
    link({ href: e.link, rel: 'alternate', type: 'text/html' }),
    ...(e.categories ?? []).map(
      (c) => `<category term="${xmlText(c.term)}"${c.label ? ` label="${xmlText(c.label)}"` : ''}/>`,
    ),
    `<summary type="text">${xmlText(e.summary)}</summary>`,
    '</entry>',
  ].join('\n');
}

export function buildAtom(feed: AtomFeed): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${xmlText(feed.id)}</id>`,
    `<title type="text">${xmlText(feed.title)}</title>`,
    feed.subtitle ? `<subtitle type="text">${xmlText(feed.subtitle)}</subtitle>` : '',
    `<updated>${xmlText(feed.updated)}</updated>`,
    `<author><name>${xmlText(feed.author)}</name></author>`,
    ...feed.links.map(link),
    ...feed.entries.map(entry),
    '</feed>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
