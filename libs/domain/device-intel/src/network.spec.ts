import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AddressListError, listFilesFromEnv, loadLists, networkChanged, parseAddress, parseAddressList } from './index.js';

describe('parseAddress', () => {
  it('IPv4, IPv6 and IPv4-mapped IPv6', () => {
    assert.deepEqual(parseAddress('192.0.2.1'), { family: 'ipv4', text: '192.0.2.1' });
    assert.deepEqual(parseAddress(' 2001:DB8::1 '), { family: 'ipv6', text: '2001:db8::1' });
    assert.deepEqual(parseAddress('::ffff:192.0.2.1'), { family: 'ipv4', text: '192.0.2.1' });
  });

  it('anything else is not an address', () => {
    for (const v of [null, undefined, '', 'localhost', '192.0.2', '192.0.2.256', '[2001:db8::1]', 'fe80::1%eth0', '192.0.2.0/24']) {
      assert.equal(parseAddress(v), undefined, String(v));
    }
  });
});

describe('networkChanged: same /24 (IPv4) or /48 (IPv6)', () => {
  it('IPv4', () => {
    assert.equal(networkChanged('192.0.2.10', '192.0.2.200'), false);
    assert.equal(networkChanged('192.0.2.10', '192.0.3.10'), true);
    assert.equal(networkChanged('192.0.2.10', '::ffff:192.0.2.99'), false);
  });

  it('IPv6', () => {
    assert.equal(networkChanged('2001:db8:1234::1', '2001:db8:1234:ffff::9'), false);
    assert.equal(networkChanged('2001:db8:1234::1', '2001:db8:1235::1'), true);
    assert.equal(networkChanged('2001:0db8:0001::1', '2001:db8:1:abcd::1'), false);
    assert.equal(networkChanged('::1', '0:0:0:0:0:0:0:1'), false);
    assert.equal(networkChanged('64:ff9b::192.0.2.1', '64:ff9b::198.51.100.1'), false);
  });

  it('cannot compare: a missing or bad address, or two families', () => {
    assert.equal(networkChanged(null, '192.0.2.1'), undefined);
    assert.equal(networkChanged('192.0.2.1', undefined), undefined);
    assert.equal(networkChanged('192.0.2.1', 'nope'), undefined);
    assert.equal(networkChanged('192.0.2.1', '2001:db8::1'), undefined);
  });
});

describe('parseAddressList', () => {
  const text = [
    '# Tor exits, fetched 2026-11-01',
    '',
    '192.0.2.1',
    '  198.51.100.0/24   # a whole network',
    '203.0.113.77/28',
    '2001:db8:dead::/48',
    '2001:db8::42',
    '::ffff:100.64.0.0/112',
    '\t',
  ].join('\n');
  const list = parseAddressList(text);

  it('counts entries, not comments or blank lines', () => {
    assert.equal(list.size, 6);
  });

  it('IPv4 addresses and networks', () => {
    assert.equal(list.has('192.0.2.1'), true);
    assert.equal(list.has('192.0.2.2'), false);
    assert.equal(list.has('198.51.100.254'), true);
    assert.equal(list.has('198.51.101.1'), false);
    assert.equal(list.has('203.0.113.64'), true); // host bits of 203.0.113.77/28 ignored
    assert.equal(list.has('203.0.113.79'), true);
    assert.equal(list.has('203.0.113.80'), false);
    assert.equal(list.has('100.64.200.1'), true); // ::ffff:100.64.0.0/112 is 100.64.0.0/16
    assert.equal(list.has('100.65.0.1'), false);
  });

  it('IPv6 addresses and networks', () => {
    assert.equal(list.has('2001:db8:dead:beef::1'), true);
    assert.equal(list.has('2001:db8:deae::1'), false);
    assert.equal(list.has('2001:0db8:0000:0000:0000:0000:0000:0042'), true);
    assert.equal(list.has('2001:db8::43'), false);
  });

  it('an IPv4-mapped address is checked as IPv4; a non-address is never listed', () => {
    assert.equal(list.has('::ffff:198.51.100.7'), true);
    assert.equal(list.has('not an ip'), false);
    assert.equal(list.has(''), false);
  });

  it('a CRLF file with a byte-order mark', () => {
    const l = parseAddressList('\uFEFF192.0.2.1\r\n192.0.2.2\r\n');
    assert.equal(l.size, 2);
    assert.equal(l.has('192.0.2.1'), true);
  });

  it('an empty list is loaded and holds nothing', () => {
    const l = parseAddressList('# nothing yet\n');
    assert.equal(l.size, 0);
    assert.equal(l.has('192.0.2.1'), false);
  });

  it('a bad line is refused with its line number', () => {
    const cases: [string, number, RegExp][] = [
      ['192.0.2.1\n# ok\nexample.com\n', 3, /not an IP address or CIDR/],
      ['192.0.2.1\n192.0.2.0/33\n', 2, /prefix length must be 0 to 32/],
      ['2001:db8::/129\n', 1, /prefix length must be 0 to 128/],
      ['192.0.2.0/\n', 1, /prefix length/],
      ['192.0.2.0/024\n', 1, /prefix length/],
      ['192.0.2.0/2x\n', 1, /prefix length/],
      ['\n\n192.0.2.1 192.0.2.2\n', 3, /not an IP address/],
      ['::ffff:192.0.2.0/64\n', 1, /96 to 128/],
    ];
    for (const [t, line, reason] of cases) {
      assert.throws(
        () => parseAddressList(t, 'TEST_LIST'),
        (e: unknown) => e instanceof AddressListError && e.line === line && e.source === 'TEST_LIST' && reason.test(e.message) && e.message.startsWith(`TEST_LIST line ${line}: `),
        JSON.stringify(t),
      );
    }
  });
});

describe('loadLists', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'device-intel-'));
    writeFileSync(path.join(dir, 'tor.txt'), '# exits\n192.0.2.1\n2001:db8::1\n');
    writeFileSync(path.join(dir, 'bad.txt'), '198.51.100.0/24\n');
    writeFileSync(path.join(dir, 'broken.txt'), '198.51.100.0/24\nnot-an-ip\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('no file: no list', async () => {
    assert.deepEqual(await loadLists({}), {});
    assert.deepEqual(await loadLists({ torExitFile: '', badNetworksFile: null }), {});
  });

  it('both files', async () => {
    const lists = await loadLists({ torExitFile: path.join(dir, 'tor.txt'), badNetworksFile: path.join(dir, 'bad.txt') });
    assert.equal(lists.torExits?.size, 2);
    assert.equal(lists.torExits?.has('2001:db8::1'), true);
    assert.equal(lists.badNetworks?.has('198.51.100.9'), true);
  });

  it('one file only', async () => {
    const lists = await loadLists({ badNetworksFile: path.join(dir, 'bad.txt') });
    assert.equal(lists.torExits, undefined);
    assert.equal(lists.badNetworks?.size, 1);
  });

  it('a bad line names the variable, the file and the line', async () => {
    const file = path.join(dir, 'broken.txt');
    await assert.rejects(loadLists({ torExitFile: file }), (e: unknown) => e instanceof AddressListError && e.line === 2 && e.message.startsWith(`TOR_EXIT_LIST_FILE=${file} line 2:`));
  });

  it('a missing file rejects', async () => {
    await assert.rejects(loadLists({ badNetworksFile: path.join(dir, 'missing.txt') }), { code: 'ENOENT' });
  });

  it('paths from the environment', () => {
    assert.deepEqual(listFilesFromEnv({ TOR_EXIT_LIST_FILE: '/a', BAD_NETWORKS_LIST_FILE: '/b', OTHER: 'x' }), { torExitFile: '/a', badNetworksFile: '/b' });
    assert.deepEqual(listFilesFromEnv({ TOR_EXIT_LIST_FILE: '' }), {});
  });
});
