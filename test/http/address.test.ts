/**
 * Address checks on the parsed address: every spelling of a link-local or private address is one, and no
 * public address is mistaken for one. Pure: nothing here opens a socket.
 */
import { describe, expect, it } from 'vitest';
import { forbiddenRedirectTarget, isLinkLocal, isPrivateAddress } from '../../src/http/address.js';
import { nextHop, type Hop } from '../../src/http/redirect.js';

/** A host as the WHATWG URL parser leaves it (the form the checks get). */
const host = (h: string) => new URL(`http://${h}/`).hostname;

describe('link-local (169.254.0.0/16, fe80::/10), in every spelling', () => {
  const linkLocal = [
    '169.254.169.254',
    '169.254.0.1',
    '0xa9.0xfe.0.1', // hex octets
    '2852039169', // one number
    '[fe80::1]',
    '[FE80::1]',
    '[fe90::1]',
    '[febf::1]',
    '[fe80:0:0:0:0:0:0:1]',
    '[::ffff:169.254.0.1]',
    '[::ffff:a9fe:1]',
    '[::ffff:a9fe:a9fe]',
    '[0:0:0:0:0:ffff:a9fe:0001]',
    '[::169.254.0.1]', // IPv4-compatible
    '[::a9fe:1]',
    '[::ffff:0:a9fe:1]', // IPv4-translated
    '[64:ff9b::a9fe:1]', // NAT64
    '[64:ff9b::169.254.169.254]',
    '[2002:a9fe:a9fe::]', // 6to4
  ];
  it.each(linkLocal)('%s', (h) => {
    expect(isLinkLocal(host(h))).toBe(true);
    expect(isPrivateAddress(host(h))).toBe(true);
  });

  const notLinkLocal = [
    '169.253.255.255',
    '169.255.0.1',
    '[fec0::1]',
    '[fe7f::1]',
    '[::ffff:a9ff:1]',
    '[64:ff9b::808:808]',
    'example.com',
    '[2001:db8::1]',
  ];
  it.each(notLinkLocal)('%s is not', (h) => {
    expect(isLinkLocal(host(h))).toBe(false);
  });
});

describe('cloud metadata addresses outside link-local space, in every spelling', () => {
  const metadata = [
    '[fd00:ec2::254]', // AWS IMDS over IPv6
    '[FD00:EC2::254]',
    '[fd00:0ec2:0000:0000:0000:0000:0000:0254]',
    '[fd00:ec2:0:0:0:0:0:254]',
    '100.100.100.200', // Alibaba Cloud
    '0x64.0x64.0x64.0xc8',
    '1684301000', // one number
    '[::ffff:100.100.100.200]',
    '[::ffff:6464:64c8]',
    '[64:ff9b::6464:64c8]',
    '[2002:6464:64c8::]',
  ];
  it.each(metadata)('%s', (h) => {
    expect(forbiddenRedirectTarget(host(h))).toBe('cloud metadata');
    expect(isPrivateAddress(host(h))).toBe(true);
  });
  it.each(['[fd00:ec2::253]', '[fd00:ec3::254]', '100.100.100.201', '[::ffff:6464:64c9]', '[64:ff9b:1::6464:64c9]'])('%s is not', (h) =>
    expect(forbiddenRedirectTarget(host(h))).toBeUndefined(),
  );
});

describe('the local-use NAT64 prefix 64:ff9b:1::/48 carries an IPv4 address where a /48, /56, /64 or /96 puts it', () => {
  it.each([
    ['[64:ff9b:1::a9fe:a9fe]', 'link-local'], // /96: the last 32 bits
    ['[64:ff9b:1::169.254.169.254]', 'link-local'],
    ['[64:ff9b:1:0:a9:fea9:fe00:0]', 'link-local'], // /64: bits 72 to 103
    ['[64:ff9b:1:a9:a9:fea9::]', 'link-local'], // /56: bits 56 to 63, then 72 to 95
    ['[64:ff9b:1:a9fe:a9:fe00::]', 'link-local'], // /48: bits 48 to 63, then 72 to 87
    ['[64:FF9B:0001:A9FE:00A9:FE00:0000:0000]', 'link-local'],
    ['[64:ff9b:1::6464:64c8]', 'cloud metadata'],
    ['[64:ff9b:1:6464:64:c800::]', 'cloud metadata'],
  ])('%s is %s', (h, why) => {
    expect(forbiddenRedirectTarget(host(h))).toBe(why);
    expect(isPrivateAddress(host(h))).toBe(true);
  });
  it.each(['[64:ff9b:1::808:808]', '[64:ff9b:2::a9fe:a9fe]', '[64:ff9b:1:808:8:800::]'])('%s is not', (h) =>
    expect(forbiddenRedirectTarget(host(h))).toBeUndefined(),
  );
});

describe('private addresses, parsed', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '0.0.0.0',
    '[::1]',
    '[::]',
    '[fc00::1]',
    '[fd12::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::ffff:10.0.0.1]',
    '[64:ff9b::a00:1]',
    'localhost',
  ])('%s', (h) => expect(isPrivateAddress(host(h))).toBe(true));
  it.each(['8.8.8.8', '172.32.0.1', '[2001:4860:4860::8888]', '[::ffff:8.8.8.8]', 'quay.io'])('%s is public', (h) =>
    expect(isPrivateAddress(host(h))).toBe(false),
  );
});

describe('a redirect to any spelling of a link-local address is refused before any request', () => {
  const hop: Hop = { url: 'https://browser.example/a/builds.json', method: 'GET', headers: {}, body: undefined };
  it.each([
    'http://[::ffff:169.254.0.1]/latest',
    'https://[::ffff:a9fe:1]/',
    'https://[fe90::1]/x',
    'https://[febf::1]/x',
    'https://[64:ff9b::a9fe:1]/',
    'https://[64:ff9b:1::a9fe:a9fe]/',
  ])('%s', (location) => {
    expect(() => nextHop(hop, 302, location, 0, { maxRedirects: 5, allowDowngrade: true })).toThrow(
      /refusing redirect to link-local address/,
    );
  });
  it.each(['http://[fd00:ec2::254]/latest/meta-data/', 'http://100.100.100.200/latest/meta-data/', 'http://[64:ff9b:1::6464:64c8]/'])(
    '%s (a cloud metadata service)',
    (location) => {
      expect(() => nextHop(hop, 302, location, 0, { maxRedirects: 5, allowDowngrade: true })).toThrow(
        /^refusing redirect to cloud metadata address \S+ from https:\/\/browser\.example\/a\/builds\.json/,
      );
    },
  );
});
