// What a billing system states about a plan's specs and datacenter locations, read into the catalogue's `specs` and
// `datacenter_locations`. Nothing is inferred: a spec is taken only where the billing system states one figure for
// the plan and the directory's spec parser (catalog/specs.ts) reads it, under the billing system's own words
// ("RAM": "4 GB", "vCPU": "2"), so that the product page shows it as the provider wrote it.
//
// Read in this order; the first statement of a figure wins, and a later one that disagrees with it is a note:
// - a configurable option offered with a single choice ("Memory" → "4 GB");
// - a configurable option that names a location ("Location", "Data center", "Region"): each of its choices is a
//   location the plan is sold in, since the customer picks one of them;
// - the description's lines: "RAM: 4 GB", "4 GB RAM", "2 vCPU", "80 GB NVMe", "Unmetered traffic",
//   "Location: Frankfurt, Germany"; several on one line when kept apart by " | ", " · ", ";" or ", ".
// A configurable option with several choices of a spec (RAM: 4 GB or 8 GB) is the customer's choice, not the plan's
// figure, and gives no spec. Product names are not read: "Minecraft 4 GB" may be RAM or disk.
import { foldKey, foldWords, type Place, placeOf } from '../catalog/gazetteer.js';
import { LIST_ITEM_MAX_LENGTH, LIST_MAX_ITEMS, SPEC_KEY_MAX_LENGTH, SPEC_VALUE_MAX_LENGTH } from '../catalog/limits.js';
import { readSpec, type SpecKey } from '../catalog/specs.js';
import type { BillingOption } from './catalogue.js';

export interface StatedSpecs {
  /** the billing system's own label → its value, in the order stated; only what the spec parser reads */
  specs: Record<string, string>;
  /** datacenter locations as stated, each place once */
  locations: string[];
  /** statements that disagree, or that do not fit the contract's limits */
  notes: string[];
}

/** A description line longer than this is prose, not a spec; skipping it also bounds the work per line. */
const MAX_STATEMENT_LENGTH = 200;
/** A label ("RAM", "Server location") is a few words. */
const MAX_LABEL_LENGTH = 60;

/** Specs and locations stated by a product's options (in the billing system's order) and its description as text. */
export function statedSpecs(description: string | null, options: readonly BillingOption[]): StatedSpecs {
  const found = newFindings();
  for (const option of options) {
    const name = tidy(option.name);
    const where = `the configurable option "${name}"`;
    if (isLocationName(name)) {
      for (const choice of option.choices) addLocation(found, tidy(choice), where);
    } else if (option.choices.length === 1) {
      const value = tidy(option.choices[0]!);
      addSpec(found, name, value, `${where} ("${value}")`);
    }
  }
  if (description !== null) {
    for (const raw of description.split('\n')) {
      const line = tidy(raw.replace(BULLET, ''));
      if (line !== '' && line.length <= MAX_STATEMENT_LENGTH) readLine(found, line);
    }
  }
  return { specs: Object.fromEntries(found.specs), locations: found.locations, notes: found.notes };
}

interface Findings {
  specs: Map<string, string>;
  /** which statement gave each figure of the vocabulary: a repetition is skipped, a disagreement noted */
  figures: Map<SpecKey, { value: number | string; said: string }>;
  /** figures already noted as disputed: one note each, however long the description */
  disputed: Set<SpecKey>;
  locations: string[];
  /** the places already listed (a city's key, else the folded text) */
  places: Set<string>;
  notes: string[];
  /** the contract's number of locations is reached (specs never reach theirs: each adds a figure of the vocabulary) */
  fullOfLocations: boolean;
}

function newFindings(): Findings {
  return {
    specs: new Map(),
    figures: new Map(),
    disputed: new Set(),
    locations: [],
    places: new Set(),
    notes: [],
    fullOfLocations: false,
  };
}

// ---------------------------------------------------------------------------------------------- description

/** List markers and check marks a line may start with ("- ", "• ", "✓ "). */
const BULLET = /^[\s\-–—•*·✓✔✅☑▪▸►→>]+/u;
/** What keeps several statements apart on one line: " | ", " · ", " • ", ";". */
const STATEMENTS_APART = /\s+[|·•]\s+|\s*;\s*/;
/** "RAM: 4 GB", "Server location: Frankfurt": a label starting with a letter, a colon, a value. */
const LABELLED = new RegExp(`^(\\p{L}[^:]{0,${MAX_LABEL_LENGTH - 1}}):\\s*(.+)$`, 'u');
/** A figure with its unit, then what it counts: "4 GB RAM", "2 vCPU", "2 x 1 TB NVMe", "1 Gbit/s port". */
const FIGURE_FIRST = new RegExp(
  String.raw`^((?:\d+\s*[x×]\s*)?\d+(?:[.,]\d+)*(?:\s*(?:[kmgtp]i?b(?:it)?(?:\/s|ps)?|gbe))?)\s+(\p{L}[\p{L}\d .\-]{0,${MAX_LABEL_LENGTH - 1}})$`,
  'iu',
);
/** "Unmetered traffic", "Unlimited websites". */
const UNLIMITED_FIRST = new RegExp(
  String.raw`^(unlimited|unmetered)\s+(\p{L}[\p{L}\d .\-]{0,${MAX_LABEL_LENGTH - 1}})$`,
  'iu',
);

function readLine(found: Findings, line: string): void {
  for (const segment of line.split(STATEMENTS_APART)) {
    const labelled = LABELLED.exec(segment);
    if (labelled !== null && isLocationName(labelled[1]!)) {
      for (const location of locationsIn(labelled[2]!)) addLocation(found, location, `the description's "${segment}"`);
      continue;
    }
    // A comma keeps statements apart ("4 GB RAM, 2 vCPU"), never a figure's decimals ("1,5 TB" has no space).
    for (const statement of segment.split(/,\s+/)) readStatement(found, statement);
  }
}

function readStatement(found: Findings, statement: string): void {
  const said = `the description's "${statement}"`;
  const labelled = LABELLED.exec(statement);
  if (labelled !== null) {
    addSpec(found, tidy(labelled[1]!), tidy(labelled[2]!), said);
    return;
  }
  const counted = FIGURE_FIRST.exec(statement) ?? UNLIMITED_FIRST.exec(statement);
  if (counted !== null) addSpec(found, tidy(counted[2]!), tidy(counted[1]!), said);
}

// ---------------------------------------------------------------------------------------------------- specs

/** Takes a label and value as a spec when the spec parser reads it and it adds a figure no earlier statement gave. */
function addSpec(found: Findings, label: string, value: string, said: string): void {
  if (label === '' || value === '') return;
  const readings = readSpec(label, value);
  const keys = Object.keys(readings) as SpecKey[];
  if (keys.length === 0) return;
  for (const key of keys) {
    const earlier = found.figures.get(key);
    if (earlier !== undefined && earlier.value !== readings[key]) {
      if (!found.disputed.has(key)) found.notes.push(`${said} disagrees with ${earlier.said}; the first is kept`);
      found.disputed.add(key);
      return;
    }
  }
  // The same figure again ("RAM: 4 GB" in the description of a plan whose option says 4 GB), or a label taken.
  if (keys.every((key) => found.figures.has(key)) || found.specs.has(label)) return;
  if ([...label].length > SPEC_KEY_MAX_LENGTH || [...value].length > SPEC_VALUE_MAX_LENGTH) {
    found.notes.push(`${said} is longer than a spec may be and is left out`);
    return;
  }
  found.specs.set(label, value);
  for (const key of keys) if (!found.figures.has(key)) found.figures.set(key, { value: readings[key]!, said });
}

// ------------------------------------------------------------------------------------------------ locations

/** Words of a label that qualify a location without changing what it is ("Server location", "Choose your region"). */
const LOCATION_QUALIFIERS = new Set([
  'server',
  'servers',
  'node',
  'vps',
  'hosting',
  'available',
  'choose',
  'select',
  'your',
  'the',
  'a',
  'of',
]);
const LOCATION_LABELS = new Set([
  'location',
  'locations',
  'datacenter',
  'datacenters',
  'datacentre',
  'datacentres',
  'data center',
  'data centers',
  'data centre',
  'data centres',
  'datacenter location',
  'data center location',
  'datacenter locations',
  'data center locations',
  'region',
  'regions',
  'country',
  'city',
  'standort',
  'standorte',
  'rechenzentrum',
  'emplacement',
  'localisation',
  'ubicacion',
]);

/** Whether a label names where a plan runs: "Location", "Server Location", "Data Center", "Region", "Standort". */
export function isLocationName(label: string): boolean {
  if (label.length > MAX_LABEL_LENGTH) return false;
  const words = foldWords(label)
    .split(' ')
    .filter((word) => !LOCATION_QUALIFIERS.has(word));
  return LOCATION_LABELS.has(words.join(' '));
}

/**
 * The locations a description's "Location: …" value names: kept apart by "/", ";", "|", "and", "&", and by commas
 * where the words after one name another place ("Frankfurt, Amsterdam") rather than the same one more closely
 * ("Frankfurt, Germany", "New York, NY", "Falkenstein, Saxony").
 */
export function locationsIn(value: string): string[] {
  const out: string[] = [];
  for (const piece of value.split(/\s*[;|·•]\s*|\s+\/\s+|\s+(?:and|&|und|or)\s+/i)) {
    let current: { text: string; place: Place | null } | null = null;
    for (const part of piece
      .split(/\s*,\s*/)
      .map(tidy)
      .filter(Boolean)) {
      const place = placeOf(part);
      if (current !== null && startsAnotherPlace(current.place, part, place)) {
        out.push(current.text);
        current = null;
      }
      const text: string = current === null ? part : `${current.text}, ${part}`;
      current = { text, place: placeOf(text) };
    }
    if (current !== null) out.push(current.text);
  }
  return out;
}

/**
 * Whether the part after a comma names a place other than the one before it: another city, or another country
 * after a country. A two-letter code never does: after a city it is more often a state ("Los Angeles, CA").
 */
function startsAnotherPlace(before: Place | null, part: string, place: Place | null): boolean {
  if (before === null || place === null || /^\p{L}{2}$/u.test(part)) return false;
  if (place.city !== null) return place.key !== before.key;
  return before.city === null && place.country !== before.country;
}

function addLocation(found: Findings, location: string, where: string): void {
  if (location === '') return;
  if ([...location].length > LIST_ITEM_MAX_LENGTH) {
    found.notes.push(`${where} names a location longer than ${LIST_ITEM_MAX_LENGTH} characters; it is left out`);
    return;
  }
  // "Frankfurt" from an option and "Frankfurt, Germany" from the description are one place, listed once.
  const place = placeOf(location);
  const key = place?.city ? `place:${place.key}` : `text:${foldKey(location)}`;
  if (found.places.has(key)) return;
  if (found.locations.length === LIST_MAX_ITEMS) {
    if (!found.fullOfLocations) found.notes.push(`only the first ${LIST_MAX_ITEMS} locations are listed`);
    found.fullOfLocations = true;
    return;
  }
  found.places.add(key);
  found.locations.push(location);
}

/** Whitespace as one plain space (a description's non-breaking and narrow spaces too), trimmed. */
function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
