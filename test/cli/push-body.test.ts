// What `hostdir push` makes of a catalogue file, and how it shows a sync's answer.
import { describe, expect, it } from 'vitest';
import { catalogueBody, PushUsageError, summaryText } from '../../src/cli/push.js';

describe('catalogueBody', () => {
  it('sends {"products": [...]} as written and wraps a bare array', () => {
    const text = '{"products": [{"external_id": "a"}]}';
    expect(catalogueBody(text, 'f.json').toString()).toBe(text);
    expect(JSON.parse(catalogueBody('[{"external_id": "a"}]', 'f.json').toString())).toEqual({
      products: [{ external_id: 'a' }],
    });
  });

  it('refuses a file that is not JSON or not a catalogue, naming the file', () => {
    expect(() => catalogueBody('{"products": [', 'broken.json')).toThrow(PushUsageError);
    expect(() => catalogueBody('{"products": [', 'broken.json')).toThrow(/broken\.json is not JSON/);
    expect(() => catalogueBody('{"items": []}', 'other.json')).toThrow(/other\.json must hold/);
    expect(() => catalogueBody('42', 'n.json')).toThrow(PushUsageError);
  });
});

describe('summaryText', () => {
  it('shows the run and a count per action', () => {
    const text = summaryText({
      sync_id: 'syn_01M8000000000000000000000A',
      dry_run: true,
      host: 'acme',
      summary: { received: 3, created: 1, updated: 0, unchanged: 2, reactivated: 0, deactivated: 4 },
      applied_at: '2026-11-21T12:00:00.000Z',
      duration_ms: 42,
    });
    expect(text.split('\n')).toEqual([
      'Dry run (nothing changed): acme, syn_01M8000000000000000000000A at 2026-11-21T12:00:00.000Z in 42 ms',
      '',
      'ACTION       PRODUCTS',
      'received            3',
      'created             1',
      'updated             0',
      'unchanged           2',
      'reactivated         0',
      'deactivated         4',
    ]);
  });
});
