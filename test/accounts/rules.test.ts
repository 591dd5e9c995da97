// The pure rules of joining: addresses, domains typed as websites, look-alike names, link tokens.
import { describe, expect, it } from 'vitest';
import {
  isLinkToken,
  lookAlikeOf,
  nameSkeleton,
  newLinkToken,
  normalDomain,
  normalEmail,
} from '../../src/accounts/rules.js';

describe('an email address', () => {
  it('is trimmed and lower-cased, or refused', () => {
    expect(normalEmail('  Ops@Acme-Hosting.Example ')).toBe('ops@acme-hosting.example');
    for (const bad of ['', 'ops', 'ops@', '@acme.example', 'ops@acme', 'a b@acme.example', 'ops@acme..example'])
      expect(normalEmail(bad), bad).toBeNull();
  });
});

describe('a website typed at sign-up', () => {
  it('is read as its domain: scheme, www., port, path and case left out, international names in ASCII', () => {
    expect(normalDomain('https://www.Acme-Hosting.example/pricing?x=1')).toBe('acme-hosting.example');
    expect(normalDomain('acme-hosting.example')).toBe('acme-hosting.example');
    expect(normalDomain('http://acme.example:8080')).toBe('acme.example');
    expect(normalDomain('bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalDomain('acme.example.')).toBe('acme.example');
  });

  it('is refused when it names no public domain', () => {
    for (const bad of [
      '',
      'localhost',
      'intranet',
      '127.0.0.1',
      'https://10.0.0.1/',
      'printer.local',
      'a.localhost',
      'https://user:pw@acme.example',
      'acme.123',
    ])
      expect(normalDomain(bad), bad).toBeNull();
  });
});

describe('a look-alike name', () => {
  const listed = ['Acme Hosting', 'acme-hosting', 'Northwind Cloud', 'northwind-cloud'];

  it('is one that reads the same once case, accents, common words and look-alike characters are folded', () => {
    expect(nameSkeleton('ACME Hosting, Inc.')).toBe(nameSkeleton('acme'));
    for (const alike of [
      'Acme',
      'ACME hosting',
      'Ácme Host',
      'Acrne Hosting',
      'A.C.M.E.',
      'Northw1nd',
      'N0rthwind Servers',
      'Northwinds',
    ])
      expect(lookAlikeOf(alike, listed), alike).not.toBeNull();
  });

  it('leaves names apart that only share a word', () => {
    for (const other of ['Acorn Hosting', 'Southwind Cloud', 'Apex Servers', 'Northwest Racks'])
      expect(lookAlikeOf(other, listed), other).toBeNull();
  });
});

describe('a link token', () => {
  it('is lnk_ and 64 hex digits, new each time', () => {
    const token = newLinkToken();
    expect(isLinkToken(token)).toBe(true);
    expect(newLinkToken()).not.toBe(token);
    expect(isLinkToken(`${token}0`)).toBe(false);
    expect(isLinkToken(token.toUpperCase())).toBe(false);
  });
});
