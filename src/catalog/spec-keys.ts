// How a spec's key is read: the words and phrases providers name each concept of the vocabulary with, and the unit a
// key may carry ("RAM (GB)", "traffic_tb").

import { keptAnswers } from './kept.js';

/** A key's words, lower case, without punctuation: "RAM (GB)" → ["ram", "gb"], "trafficTB" → ["traffic", "tb"]. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Units a key may carry ("ram_mb", "Traffic (TB)", "port_gbps"): the unit its bare numbers are in. */
const KEY_UNITS: Record<string, string> = {
  kb: 'kb',
  mb: 'mb',
  gb: 'gb',
  tb: 'tb',
  pb: 'pb',
  mib: 'mb',
  gib: 'gb',
  tib: 'tb',
  mbps: 'mbps',
  gbps: 'gbps',
  mbit: 'mbps',
  gbit: 'gbps',
  mbits: 'mbps',
  gbits: 'gbps',
};

type Concept =
  | 'cpu'
  | 'ram'
  | 'disk'
  | 'disk_nvme'
  | 'disk_ssd'
  | 'disk_hdd'
  | 'disk_type'
  | 'traffic'
  | 'port'
  | 'ipv4'
  | 'slots'
  | 'websites'
  | 'email';

/** Phrases of key words (after units are taken off) and what they name; the longest phrase found wins. */
const KEY_PHRASES: [string, Concept][] = [
  ['cpu', 'cpu'],
  ['cpus', 'cpu'],
  ['vcpu', 'cpu'],
  ['vcpus', 'cpu'],
  ['cores', 'cpu'],
  ['core', 'cpu'],
  ['vcores', 'cpu'],
  ['vcore', 'cpu'],
  ['cpu cores', 'cpu'],
  ['cpu core', 'cpu'],
  ['processor', 'cpu'],
  ['processors', 'cpu'],
  ['threads', 'cpu'],
  ['virtual cpu', 'cpu'],
  ['virtual cores', 'cpu'],
  ['cpu count', 'cpu'],
  ['num cpu', 'cpu'],
  ['cores count', 'cpu'],
  ['ram', 'ram'],
  ['memory', 'ram'],
  ['mem', 'ram'],
  ['ram memory', 'ram'],
  ['system memory', 'ram'],
  ['guaranteed ram', 'ram'],
  ['ddr4', 'ram'],
  ['ddr5', 'ram'],
  ['arbeitsspeicher', 'ram'],
  ['memory size', 'ram'],
  ['ram size', 'ram'],
  ['disk', 'disk'],
  ['disks', 'disk'],
  ['disk space', 'disk'],
  ['storage', 'disk'],
  ['drive', 'disk'],
  ['drives', 'disk'],
  ['disk size', 'disk'],
  ['storage space', 'disk'],
  ['space', 'disk'],
  ['web space', 'disk'],
  ['webspace', 'disk'],
  ['hard drive', 'disk'],
  ['hdd space', 'disk_hdd'],
  ['ssd space', 'disk_ssd'],
  ['ssd storage', 'disk_ssd'],
  ['nvme storage', 'disk_nvme'],
  ['nvme space', 'disk_nvme'],
  ['ssd', 'disk_ssd'],
  ['nvme', 'disk_nvme'],
  ['hdd', 'disk_hdd'],
  ['nvme ssd', 'disk_nvme'],
  ['ssd disk', 'disk_ssd'],
  ['nvme disk', 'disk_nvme'],
  ['speicher', 'disk'],
  ['festplatte', 'disk'],
  ['disk type', 'disk_type'],
  ['storage type', 'disk_type'],
  ['drive type', 'disk_type'],
  ['traffic', 'traffic'],
  ['bandwidth', 'traffic'],
  ['transfer', 'traffic'],
  ['data transfer', 'traffic'],
  ['monthly traffic', 'traffic'],
  ['traffic volume', 'traffic'],
  ['egress', 'traffic'],
  ['outbound traffic', 'traffic'],
  ['port', 'port'],
  ['port speed', 'port'],
  ['uplink', 'port'],
  ['network', 'port'],
  ['network speed', 'port'],
  ['nic', 'port'],
  ['connection', 'port'],
  ['network port', 'port'],
  ['link speed', 'port'],
  ['anbindung', 'port'],
  ['ipv4', 'ipv4'],
  ['ipv4 addresses', 'ipv4'],
  ['ipv4 address', 'ipv4'],
  ['ip', 'ipv4'],
  ['ips', 'ipv4'],
  ['ip addresses', 'ipv4'],
  ['dedicated ip', 'ipv4'],
  ['ipv4 ips', 'ipv4'],
  ['ip address', 'ipv4'],
  ['slots', 'slots'],
  ['slot', 'slots'],
  ['player slots', 'slots'],
  ['players', 'slots'],
  ['max players', 'slots'],
  ['player', 'slots'],
  ['player count', 'slots'],
  ['max slots', 'slots'],
  ['user slots', 'slots'],
  ['voice slots', 'slots'],
  ['websites', 'websites'],
  ['website', 'websites'],
  ['sites', 'websites'],
  ['domains', 'websites'],
  ['domain', 'websites'],
  ['hosted domains', 'websites'],
  ['addon domains', 'websites'],
  ['number of websites', 'websites'],
  ['wordpress sites', 'websites'],
  ['email', 'email'],
  ['emails', 'email'],
  ['email accounts', 'email'],
  ['e mail', 'email'],
  ['e mail accounts', 'email'],
  ['mailboxes', 'email'],
  ['mailbox', 'email'],
  ['email addresses', 'email'],
  ['mail accounts', 'email'],
  ['pop3 accounts', 'email'],
];
const PHRASES = new Map(KEY_PHRASES);
/** Words that qualify a key without changing what it names ("Max RAM", "Included traffic", "Total disk"). */
const FILLER = new Set([
  'max',
  'maximum',
  'total',
  'included',
  'incl',
  'guaranteed',
  'dedicated',
  'amount',
  'of',
  'the',
  'size',
  'count',
  'number',
  'per',
  'month',
  'monthly',
  'mo',
  'allocated',
  'in',
]);

interface KeyReading {
  concept: Concept;
  unit: string | null;
}

/** Keys repeat across a catalogue (every plan says "RAM"): each is read once, up to 10 000 kept. */
const keptKeyReadings = keptAnswers(10_000, (key: string) => readKey(key));

/** What a key names and the unit it states, or null when it names nothing of the vocabulary. */
export function readSpecKey(key: string): KeyReading | null {
  return keptKeyReadings(key);
}

function readKey(key: string): KeyReading | null {
  const words = keyWords(key);
  let unit: string | null = null;
  const rest: string[] = [];
  for (const word of words) {
    const keyUnit = KEY_UNITS[word];
    if (keyUnit && rest.length > 0) unit = keyUnit;
    else rest.push(word);
  }
  if (rest.length === 0) return null;
  const phrase = rest.join(' ');
  const exact = PHRASES.get(phrase);
  if (exact) return { concept: exact, unit };
  const meaningful = rest.filter((word) => !FILLER.has(word) || PHRASES.has(word));
  const trimmed = meaningful.join(' ');
  const found = PHRASES.get(trimmed);
  if (found) return { concept: found, unit };
  // "ram_gb_guaranteed", "disk_nvme": the longest known phrase inside the words.
  for (let length = Math.min(3, meaningful.length); length >= 1; length--) {
    for (let start = 0; start + length <= meaningful.length; start++) {
      const concept = PHRASES.get(meaningful.slice(start, start + length).join(' '));
      if (concept) return { concept, unit };
    }
  }
  return null;
}
