import { describe, expect, it } from 'vitest';
import { normalizeIpAddress } from '../../../../shared/src/accounts/ip-address.ts';

describe('normalizeIpAddress', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['255.255.255.255', '255.255.255.255'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['::ffff:0a00:0001', '10.0.0.1'],
    ['0:0:0:0:0:ffff:c0a8:0101', '192.168.1.1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::', '::'],
    ['fe80::0001', 'fe80::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizeIpAddress(input)).toBe(expected);
  });

  it.each([
    '',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2.3.4/32',
    '10.0.0.0/8',
    '2001:db8::/32',
    '1.2.3',
    '1.2.3.256',
    '01.2.3.4',
    'fe80::1%eth0',
    'example.com',
    '::ffff:1.2.3.4/128',
    '1:2:3:4:5:6:7:8:9',
    'garbage',
  ])('refuses %j', (input) => {
    expect(normalizeIpAddress(input)).toBeUndefined();
  });
});
