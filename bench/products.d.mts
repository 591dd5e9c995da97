// Types of products.mjs, for the tests that use the benchmark's catalogues.
export interface BenchProduct {
  external_id: string;
  name: string;
  category: string;
  price: number;
  currency: string;
  description: string;
  specs: Record<string, string | number | boolean>;
  pricing_tiers: { period: string; price: number }[];
  setup_fee: number;
  contract_duration: string;
  features: string[];
  datacenter_locations: string[];
}
export function product(i: number, variant?: number): BenchProduct;
export function catalogue(count: number, from?: number): BenchProduct[];
export function mixedCatalogue(count: number): BenchProduct[];
export function body(products: readonly unknown[]): Buffer;
