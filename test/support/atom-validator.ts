// Validates Atom documents with libxml2 (xmllint-wasm, from npm): well-formed XML 1.0, valid against the RELAX NG
// schema of RFC 4287 (atom.rng beside this file), and the RFC's rules that the schema cannot say (its Schematron
// rules: an author on the feed or on every entry; at most one alternate link per type and hreflang), read from the
// document as libxml2 normalised it.
import { readFileSync } from 'node:fs';
import { validateXML } from 'xmllint-wasm';

const SCHEMA = readFileSync(new URL('./atom.rng', import.meta.url), 'utf8');

export async function atomProblems(xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: { fileName: 'feed.atom', contents: xml },
    schema: { fileName: 'atom.rng', contents: SCHEMA },
    extension: 'relaxng',
    normalization: 'c14n',
  });
  const problems = result.errors.map((error) => error.message);
  if (!result.valid) return problems.length > 0 ? problems : [result.rawOutput];
  const canonical = result.normalized;
  const entries = canonical.split('<entry>').slice(1);
  const head = canonical.split('<entry>')[0] ?? '';
  if (!head.includes('<author>') && entries.some((entry) => !entry.includes('<author>'))) {
    problems.push('atom:feed without atom:author has an entry without one (RFC 4287 4.1.1)');
  }
  for (const [k, part] of [head, ...entries].entries()) {
    const alternates = [...part.matchAll(/<link\b[^>]*>/g)]
      .map((match) => match[0])
      .filter((link) => !/\brel="/.test(link) || /\brel="alternate"/.test(link))
      .map((link) => `${/\btype="([^"]*)"/.exec(link)?.[1] ?? ''}|${/\bhreflang="([^"]*)"/.exec(link)?.[1] ?? ''}`);
    if (new Set(alternates).size !== alternates.length)
      problems.push(`${k === 0 ? 'the feed' : `entry ${k}`} has two alternate links of one type and hreflang`);
  }
  return problems;
}
