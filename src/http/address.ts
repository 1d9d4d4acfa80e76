/**
 * Where an address points, decided on the parsed address, never on its text: an IPv6 address can spell an IPv4
 * one in many ways (`::ffff:169.254.0.1`, `::ffff:a9fe:1`, `::169.254.0.1`, `64:ff9b::a9fe:1`, leading zeros,
 * upper case, a zone id), and fe80::/10 is more than the addresses starting `fe80:`. A URL's host has already
 * been normalised by the WHATWG URL parser (so IPv4 in hex or as one number reads as dotted decimal here).
 */
import { isIP } from 'node:net';

const bare = (host: string) =>
  host
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();

/** The 4 bytes of a dotted IPv4 address. */
function ipv4Bytes(h: string): number[] {
  return h.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (valid per isIP), an embedded dotted IPv4 tail included. */
function ipv6Bytes(h: string): number[] {
  let text = h;
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail = ipv4Bytes(dotted[1]!);
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(rest);
  const words = rest === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

const zero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 address an IPv6 one carries, when it is one of the forms that reach an IPv4 host: IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-compatible (`::/96`, deprecated but still routed by some stacks), IPv4-translated
 * (`::ffff:0:0:0/96`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`).
 */
function embeddedIpv4(b: number[]): number[] | undefined {
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12);
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) return b.slice(12);
  if (zero(b, 0, 12) && !zero(b, 12, 16) && !(zero(b, 12, 15) && b[15] === 1)) return b.slice(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b, 4, 12)) return b.slice(12);
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6);
  return undefined;
}

type Parsed = { v: 4; bytes: number[] } | { v: 6; bytes: number[] };

/** The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215), which a network may split into longer prefixes. */
const isLocalNat64 = (b: number[]) => b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b[4] === 0x00 && b[5] === 0x01;

/**
 * The IPv4 addresses a local-use NAT64 address may carry: where RFC 6052 puts them for a /48, /56, /64 and /96
 * prefix (byte 8, bits 64 to 71, is always skipped). Which length a network uses cannot be told from the address,
 * so every one counts.
 */
const localNat64Ipv4 = (b: number[]): number[][] => [
  [b[6]!, b[7]!, b[9]!, b[10]!],
  [b[7]!, b[9]!, b[10]!, b[11]!],
  b.slice(9, 13),
  b.slice(12, 16),
];

/**
 * What a host may reach, when it is an IP address: an IPv6 one that carries an IPv4 address is that one; a
 * local-use NAT64 address is itself and every IPv4 address it may carry.
 */
function parse(host: string): Parsed[] {
  const h = bare(host);
  const v = isIP(h);
  if (v === 4) return [{ v: 4, bytes: ipv4Bytes(h) }];
  if (v !== 6) return [];
  const bytes = ipv6Bytes(h);
  const v4 = embeddedIpv4(bytes);
  if (v4) return [{ v: 4, bytes: v4 }];
  if (isLocalNat64(bytes)) return [{ v: 6, bytes }, ...localNat64Ipv4(bytes).map((b): Parsed => ({ v: 4, bytes: b }))];
  return [{ v: 6, bytes }];
}

const linkLocal = (p: Parsed) =>
  p.v === 4 ? p.bytes[0] === 169 && p.bytes[1] === 254 : p.bytes[0] === 0xfe && (p.bytes[1]! & 0xc0) === 0x80;

/**
 * Cloud metadata services outside link-local space: AWS's IMDS over IPv6 (fd00:ec2::254) and Alibaba Cloud's
 * (100.100.100.200). The others (169.254.169.254 of AWS, GCP, Azure and more) are link-local, covered above.
 */
const METADATA: Parsed[] = [
  { v: 6, bytes: ipv6Bytes('fd00:ec2::254') },
  { v: 4, bytes: [100, 100, 100, 200] },
];
const metadata = (p: Parsed) => METADATA.some((m) => m.v === p.v && m.bytes.every((b, i) => b === p.bytes[i]));

function privateAddress(p: Parsed): boolean {
  if (linkLocal(p) || metadata(p)) return true;
  const [a, b] = p.bytes as [number, number];
  if (p.v === 4) return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a === 0;
  const loopbackOrAny = zero(p.bytes, 0, 15) && (p.bytes[15] === 1 || p.bytes[15] === 0);
  return loopbackOrAny || (a & 0xfe) === 0xfc;
}

/**
 * Loopback, RFC 1918, link-local, unique-local, unspecified, cloud metadata: addresses a public server must not
 * send us to.
 */
export function isPrivateAddress(host: string): boolean {
  if (bare(host) === 'localhost') return true;
  return parse(host).some(privateAddress);
}

/** 169.254.0.0/16 and fe80::/10, in any spelling: cloud metadata services live there; no redirect may lead to them. */
export function isLinkLocal(host: string): boolean {
  return parse(host).some(linkLocal);
}

/**
 * Why no redirect may lead to a host: `link-local` (169.254.0.0/16, fe80::/10), `cloud metadata` (the metadata
 * services outside link-local space), each in any spelling; `undefined` when it may.
 */
export function forbiddenRedirectTarget(host: string): 'link-local' | 'cloud metadata' | undefined {
  const all = parse(host);
  if (all.some(linkLocal)) return 'link-local';
  if (all.some(metadata)) return 'cloud metadata';
  return undefined;
}
