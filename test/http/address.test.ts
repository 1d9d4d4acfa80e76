/**
 * Address checks on the parsed address: every spelling of a link-local or private address is one, and no
 * public address is mistaken for one. Pure: nothing here opens a socket.
 */
import { describe, expect, it } from 'vitest';
import { isLinkLocal, isPrivateAddress } from '../../src/http/address.js';
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
  ])('%s', (location) => {
    expect(() => nextHop(hop, 302, location, 0, { maxRedirects: 5, allowDowngrade: true })).toThrow(
      /refusing redirect to link-local address/,
    );
  });
});
