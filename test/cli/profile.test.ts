// The options of `hostdir profile set` and `hostdir hosts update`, as the change they send.
import { describe, expect, it } from 'vitest';
import { profileChangeOf, ProfileUsageError, profileText } from '../../src/cli/profile.js';

describe('profile options', () => {
  it('send the fields given, an empty value and --clear as null', () => {
    expect(profileChangeOf({ website: 'https://a.example', country: 'de' })).toEqual({
      website: 'https://a.example',
      country: 'de',
    });
    expect(profileChangeOf({ description: '  ' })).toEqual({ description: null });
    expect(profileChangeOf({ clear: ['website,order-url-template', 'country'] })).toEqual({
      website: null,
      order_url_template: null,
      country: null,
    });
    expect(profileChangeOf({ orderUrlTemplate: 'https://b.example/{external_id}' })).toEqual({
      order_url_template: 'https://b.example/{external_id}',
    });
  });

  it('refuse nothing to change, and a field the profile does not have', () => {
    expect(() => profileChangeOf({})).toThrow(ProfileUsageError);
    expect(() => profileChangeOf({ clear: ['logo'] })).toThrow(
      /--clear takes website, description, country, order_url_template; got "logo"/,
    );
  });

  it('print the profile with a dash for what is not set', () => {
    expect(
      profileText({
        slug: 'acme',
        name: 'Acme',
        website: 'https://a.example',
        description: null,
        country: 'DE',
        order_url_template: null,
      }),
    ).toBe(
      [
        'host         Acme (acme)',
        'website      https://a.example',
        'description  —',
        'country      DE',
        'order link   —',
      ].join('\n'),
    );
  });
});
