// The price per resource (catalog/price-per.ts): what each category's family gives a figure for, and when a figure is
// unknown.
import { describe, expect, it } from 'vitest';
import { perUnit, pricePer, pricePerKeys } from '../../src/catalog/price-per.js';
import { UNLIMITED } from '../../src/catalog/specs.js';

describe('price per resource', () => {
  it('divides the monthly price by the amount, to four decimals', () => {
    expect(perUnit(10, 4)).toBe(2.5);
    expect(perUnit(12, 320)).toBe(0.0375);
    expect(perUnit(2.5, 16)).toBe(0.1563);
    expect(perUnit(0, 8)).toBe(0);
  });

  it('knows no figure without a price, or for none, a negative or an unlimited amount', () => {
    expect(perUnit(null, 4)).toBeNull();
    expect(perUnit(10, undefined)).toBeNull();
    expect(perUnit(10, 0)).toBeNull();
    expect(perUnit(10, -2)).toBeNull();
    expect(perUnit(10, UNLIMITED)).toBeNull();
  });

  it("gives RAM, cores and disk always, traffic and player slots where the category's family has them", () => {
    expect(pricePerKeys('vps_cloud')).toEqual(['ram_gb', 'cpu_core', 'disk_gb', 'traffic_tb']);
    expect(pricePerKeys('web_shared')).toEqual(['ram_gb', 'cpu_core', 'disk_gb', 'traffic_tb']);
    expect(pricePerKeys('game_minecraft')).toEqual(['ram_gb', 'cpu_core', 'disk_gb', 'player_slot']);
    expect(pricePerKeys('email')).toEqual(['ram_gb', 'cpu_core', 'disk_gb', 'traffic_tb', 'player_slot']);
  });

  it("reads a plan's normalized specs", () => {
    expect(pricePer(20, { ram_gb: 8, cpu_cores: 4, disk_gb: 160, bandwidth_tb: UNLIMITED }, 'vps_cloud')).toEqual({
      ram_gb: 2.5,
      cpu_core: 5,
      disk_gb: 0.125,
      traffic_tb: null,
    });
    expect(pricePer(null, { ram_gb: 8 }, 'vps_cloud')).toEqual({
      ram_gb: null,
      cpu_core: null,
      disk_gb: null,
      traffic_tb: null,
    });
  });
});
