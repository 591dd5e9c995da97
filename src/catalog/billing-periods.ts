// Placeholder: replaced by the full table of billing systems' spellings.
export const CANONICAL_PERIODS = ['hourly','daily','weekly','monthly','quarterly','semiannually','annually','biennially','triennially','one_time'] as const;
export type CanonicalPeriod = (typeof CANONICAL_PERIODS)[number];
const SIMPLE = new Map<string, CanonicalPeriod>(CANONICAL_PERIODS.map((p) => [p.replace('_', ''), p]));
export function canonicalPeriod(sent: string): CanonicalPeriod | null {
  return SIMPLE.get(sent.toLowerCase().replace(/[^a-z0-9]/g, '')) ?? null;
}
