// A host's profile: which links and values are taken, and how an order link is made.
import { describe, expect, it } from 'vitest';
import { checkProfileChange, expandOrderUrl, isCountryCode } from '../../src/catalog/host-profile.js';

const TEMPLATE = 'https://billing.example.com/cart.php?a=add&pid={external_id}';

describe('profile checks', () => {
  it('takes https links, a description and a country in any case', () => {
    expect(
      checkProfileChange({
        website: ' https://www.example.com/ ',
        order_url_template: TEMPLATE,
        country: 'de',
        description: 'Small host',
      }),
    ).toEqual({
      ok: true,
      values: {
        website: 'https://www.example.com/',
        order_url_template: TEMPLATE,
        country: 'DE',
        description: 'Small host',
      },
    });
  });

  it('clears with null, and keeps what is not named', () => {
    expect(checkProfileChange({ website: null })).toEqual({ ok: true, values: { website: null } });
    expect(checkProfileChange({})).toEqual({ ok: true, values: {} });
  });

  it.each([
    ['website', 'javascript:alert(1)', 'url'],
    ['website', 'JavaScript:alert(1)//https://x.example', 'url'],
    ['website', 'http://example.com', 'url'],
    ['website', 'https://user:secret@example.com/', 'url'],
    ['website', 'https://user@example.com/', 'url'],
    ['website', 'https://exa mple.com/', 'url'],
    ['website', 'https://example.com/"onmouseover="x', 'url'],
    ['website', 'data:text/html,<script>alert(1)</script>', 'url'],
    ['website', '//example.com', 'url'],
    ['website', 'https://intranet/', 'url'],
    ['website', `https://example.com/${'a'.repeat(500)}`, 'url'],
    ['order_url_template', 'https://billing.example.com/cart.php', 'template'],
    ['order_url_template', 'https://billing.example.com/{product}/{external_id}', 'template'],
    ['order_url_template', 'http://billing.example.com/?pid={external_id}', 'url'],
    ['order_url_template', 'javascript:alert("{external_id}")', 'url'],
    ['country', 'XX', 'country'],
    ['country', 'DEU', 'country'],
    ['country', 'ZZ', 'country'],
    ['description', 'x'.repeat(501), 'max_length'],
    ['description', 'a\u0000b', 'control_characters'],
  ] as const)('refuses %s %j', (field, value, code) => {
    expect(checkProfileChange({ [field]: value })).toEqual({
      ok: false,
      problems: [{ pointer: `/${field}`, code, detail: expect.any(String) }],
    });
  });

  it('knows countries', () => {
    expect(['DE', 'US', 'GB', 'FI'].every(isCountryCode)).toBe(true);
    expect(['XX', 'ZZ', 'de', 'D'].some(isCountryCode)).toBe(false);
  });
});

describe('order links', () => {
  it('put the URL-encoded external_id where the template says', () => {
    expect(expandOrderUrl(TEMPLATE, '42')).toBe('https://billing.example.com/cart.php?a=add&pid=42');
    expect(expandOrderUrl(TEMPLATE, 'vps s/1&x=<y>')).toBe(
      'https://billing.example.com/cart.php?a=add&pid=vps%20s%2F1%26x%3D%3Cy%3E',
    );
    expect(expandOrderUrl('https://x.example/{external_id}/{external_id}', 'a#b')).toBe(
      'https://x.example/a%23b/a%23b',
    );
  });
});
