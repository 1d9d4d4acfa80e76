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

/** The address a host names, when it is an IP address; an IPv6 one that carries an IPv4 address is that one. */
function parse(host: string): Parsed | undefined {
  const h = bare(host);
  const v = isIP(h);
  if (v === 4) return { v: 4, bytes: ipv4Bytes(h) };
  if (v !== 6) return undefined;
  const bytes = ipv6Bytes(h);
  const v4 = embeddedIpv4(bytes);
  return v4 ? { v: 4, bytes: v4 } : { v: 6, bytes };
}

const linkLocal = (p: Parsed) =>
  p.v === 4 ? p.bytes[0] === 169 && p.bytes[1] === 254 : p.bytes[0] === 0xfe && (p.bytes[1]! & 0xc0) === 0x80;

/** Loopback, RFC 1918, link-local, unique-local, unspecified: addresses a public server must not send us to. */
export function isPrivateAddress(host: string): boolean {
  if (bare(host) === 'localhost') return true;
  const p = parse(host);
  if (!p) return false;
  if (linkLocal(p)) return true;
  const [a, b] = p.bytes as [number, number];
  if (p.v === 4) return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a === 0;
  const loopbackOrAny = zero(p.bytes, 0, 15) && (p.bytes[15] === 1 || p.bytes[15] === 0);
  return loopbackOrAny || (a & 0xfe) === 0xfc;
}

/** 169.254.0.0/16 and fe80::/10, in any spelling: cloud metadata services live there; no redirect may lead to them. */
export function isLinkLocal(host: string): boolean {
  const p = parse(host);
  return p !== undefined && linkLocal(p);
}
