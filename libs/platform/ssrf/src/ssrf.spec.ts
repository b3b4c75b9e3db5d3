import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, classifyHost, isAllowedRange, parseIp, parseIPv4, parseIPv6, formatIPv6, parseReceiverUrl, type AddressRange } from './index.js';

function rangeOf(text: string): AddressRange {
  const c = classifyAddress(text);
  assert.ok(c, `${text} should parse as an IP literal`);
  return c.range;
}

describe('IPv4 literals in every notation', () => {
  const loopbackForms = [
    '127.0.0.1',
    '2130706433', // one decimal number
    '0x7f000001', // one hex number
    '0X7F000001',
    '017700000001', // one octal number
    '0x7f.1', // hex first byte, rest filled by the last part
    '0x7f.0.0.1',
    '0177.0.0.1', // octal first byte
    '0177.0.0.01',
    '127.1', // two parts
    '127.0.1', // three parts
    '127.0.0.1.', // trailing dot
    '0x7f.0x0.0x0.0x1',
  ];
  for (const form of loopbackForms) {
    it(`${form} is 127.0.0.1, loopback`, () => {
      const c = classifyAddress(form);
      assert.deepEqual(c, { address: '127.0.0.1', family: 4, range: 'loopback' });
    });
  }

  it('reads 0 and 0x as zero and refuses out-of-range or malformed parts', () => {
    assert.equal(parseIPv4('0'), 0);
    assert.equal(parseIPv4('0x'), 0);
    assert.equal(parseIPv4('4294967295'), 0xffffffff);
    for (const bad of ['4294967296', '256.0.0.1', '1.256.0.1', '1.2.65536', '1.16777216', '08.0.0.1', '0x1g.0.0.1', '1..2.3', '1.2.3.4.5', '', '.', 'a.b.c.d', '-1.0.0.0', '1 .2.3.4', '9'.repeat(50)]) {
      assert.equal(parseIPv4(bad), null, bad);
    }
  });
});

describe('IPv6 literals', () => {
  it('parses compression, brackets and a dotted tail, and prints RFC 5952 text', () => {
    assert.equal(formatIPv6(parseIPv6('[0:0:0:0:0:0:0:1]')!), '::1');
    assert.equal(formatIPv6(parseIPv6('2001:DB8:0:0:1:0:0:1')!), '2001:db8::1:0:0:1');
    assert.equal(formatIPv6(parseIPv6('::ffff:127.0.0.1')!), '::ffff:7f00:1');
    assert.equal(formatIPv6(parseIPv6('fe80::')!), 'fe80::');
    assert.equal(formatIPv6(parseIPv6('1:0:1:0:1:0:1:0')!), '1:0:1:0:1:0:1:0');
  });
  it('refuses zone ids, double compression, too many groups and loose dotted tails', () => {
    for (const bad of ['fe80::1%eth0', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '::ffff:127.1', '::ffff:127.0.0.01', '::1.2.3.4:5', '12345::', ':1::', 'g::1']) {
      assert.equal(parseIPv6(bad), null, bad);
    }
  });
});

describe('address classification', () => {
  const table: Array<[string, AddressRange]> = [
    // unspecified
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    // loopback
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    // private (RFC 1918)
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    // link-local and metadata
    ['169.254.0.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['192.0.0.192', 'metadata'],
    // carrier-grade NAT
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    // multicast, broadcast, reserved
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    // unique local and site local
    ['fc00::1', 'unique_local'],
    ['fd12:3456:789a::1', 'unique_local'],
    ['fec0::1', 'site_local'],
    // documentation and benchmarking
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.200', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    // other special IPv6 blocks
    ['::7f00:1', 'reserved'], // IPv4-compatible (deprecated)
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
    ['64:ff9b:1::a00:1', 'reserved'], // local-use NAT64
    ['100::1', 'reserved'], // discard-only
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'], // outside 2000::/3
    // public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['11.0.0.1', 'public'],
    ['223.255.255.255', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
  ];
  for (const [address, range] of table) {
    it(`${address} is ${range}`, () => assert.equal(rangeOf(address), range));
  }

  it('classifies IPv4 carried inside IPv6 by the IPv4 address: mapped, translated, NAT64 and 6to4', () => {
    const embedded: Array<[string, AddressRange, string]> = [
      ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
      ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
      ['[::ffff:169.254.169.254]', 'metadata', '169.254.169.254'],
      ['::ffff:10.0.0.1', 'private', '10.0.0.1'],
      ['::ffff:0:7f00:1', 'loopback', '127.0.0.1'], // IPv4-translated
      ['64:ff9b::127.0.0.1', 'loopback', '127.0.0.1'], // NAT64
      ['64:ff9b::a9fe:a9fe', 'metadata', '169.254.169.254'],
      ['64:ff9b::192.168.0.1', 'private', '192.168.0.1'],
      ['2002:7f00:1::', 'loopback', '127.0.0.1'], // 6to4 of 127.0.0.1
      ['2002:a00:1::1', 'private', '10.0.0.1'],
      ['2002:a9fe:a9fe::', 'metadata', '169.254.169.254'],
      ['::ffff:8.8.8.8', 'public', '8.8.8.8'],
      ['64:ff9b::8.8.8.8', 'public', '8.8.8.8'],
    ];
    for (const [text, range, inner] of embedded) {
      const c = classifyAddress(text);
      assert.equal(c?.range, range, text);
      assert.equal(c?.embedded, inner, text);
      assert.equal(c?.family, 6);
    }
  });

  it('returns null for text that is not an IP literal', () => {
    for (const t of ['example.com', 'localhost', '', '1.2.3.4.5', 'fe80::1%1']) assert.equal(classifyAddress(t), null, t);
    assert.deepEqual(parseIp('1.2.3.4'), { family: 4, value: 0x01020304 });
  });
});

describe('the address policy', () => {
  it('allows only public addresses by default', () => {
    for (const r of ['loopback', 'private', 'link_local', 'cgnat', 'unique_local', 'metadata', 'unspecified', 'multicast', 'documentation'] as AddressRange[]) {
      assert.equal(isAllowedRange(r, false), false, r);
    }
    assert.equal(isAllowedRange('public', false), true);
  });
  it('with private networks allowed, opens loopback, private, link-local, CGNAT and ULA, never metadata or non-unicast', () => {
    for (const r of ['loopback', 'private', 'link_local', 'cgnat', 'unique_local', 'site_local'] as AddressRange[]) assert.equal(isAllowedRange(r, true), true, r);
    for (const r of ['metadata', 'unspecified', 'multicast', 'broadcast', 'reserved', 'documentation', 'benchmarking'] as AddressRange[]) {
      assert.equal(isAllowedRange(r, true), false, r);
    }
  });
});

describe('hosts', () => {
  it('treats localhost names as loopback without DNS, and names that end in a number as IPv4 or invalid', () => {
    assert.deepEqual(classifyHost('localhost'), { kind: 'loopback_name' });
    assert.deepEqual(classifyHost('LOCALHOST.'), { kind: 'loopback_name' });
    assert.deepEqual(classifyHost('api.localhost'), { kind: 'loopback_name' });
    assert.deepEqual(classifyHost('hooks.example.com'), { kind: 'name', name: 'hooks.example.com' });
    assert.deepEqual(classifyHost('hooks.example.com.'), { kind: 'name', name: 'hooks.example.com' });
    assert.equal(classifyHost('1.2.3.999').kind, 'invalid');
    assert.equal(classifyHost('example.0x1g').kind, 'name');
    assert.equal(classifyHost('fe80::1%eth0').kind, 'invalid');
    const ip = classifyHost('[::1]');
    assert.equal(ip.kind === 'ip' && ip.address.range, 'loopback');
  });
});

describe('receiver URLs', () => {
  it('accepts https and normalizes literal IPs of every notation', () => {
    for (const [raw, address] of [
      ['https://2130706433/hook', '127.0.0.1'],
      ['https://0x7f.1/hook', '127.0.0.1'],
      ['https://0177.0.0.1:8443/hook', '127.0.0.1'],
      ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
      ['https://[2002:7f00:1::]/', '2002:7f00:1::'],
      ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1'],
    ] as const) {
      const u = parseReceiverUrl(raw);
      assert.ok(u.ok, raw);
      assert.equal(u.host.kind, 'ip', raw);
      if (u.host.kind === 'ip') {
        assert.equal(u.host.address.address, address, raw);
        assert.equal(isAllowedRange(u.host.address.range, false), false, raw);
      }
    }
    const named = parseReceiverUrl('https://hooks.example.com:8443/a?b=c');
    assert.ok(named.ok);
    assert.equal(named.port, 8443);
    assert.equal(named.hostname, 'hooks.example.com');
    assert.equal(named.href, 'https://hooks.example.com:8443/a?b=c');
  });
  it('refuses plain HTTP, other schemes, credentials, fragments, junk and overlong URLs', () => {
    const cases: Array<[unknown, string]> = [
      ['http://example.com/hook', 'https_required'],
      ['HTTP://example.com/hook', 'https_required'],
      ['ftp://example.com/', 'https_required'],
      ['https://user:pw@example.com/', 'credentials_not_allowed'],
      ['https://user@example.com/', 'credentials_not_allowed'],
      ['https://example.com/#frag', 'fragment_not_allowed'],
      ['https://example.com/#', 'fragment_not_allowed'],
      ['example.com/hook', 'invalid_url'],
      ['https://1.2.3.999/', 'invalid_url'],
      ['', 'invalid_url'],
      [42, 'invalid_url'],
      [`https://example.com/${'a'.repeat(2048)}`, 'too_long'],
    ];
    for (const [raw, problem] of cases) {
      const u = parseReceiverUrl(raw);
      assert.equal(u.ok, false, String(raw));
      if (!u.ok) assert.equal(u.problem, problem, String(raw));
    }
  });
});
