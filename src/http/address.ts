import { isIP } from 'node:net';

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** Loopback, RFC 1918, link-local, unique-local: addresses a public server must not send us to. */
export function isPrivateAddress(host: string): boolean {
  const h = bare(host);
  if (h === 'localhost') return true;
  const v = isIP(h);
  if (v === 4) {
    const [a, b] = h.split('.').map(Number) as [number, number];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || a === 0;
  }
  if (v === 6) return h === '::1' || h === '::' || h.startsWith('fe80:') || h.startsWith('fc') || h.startsWith('fd');
  return false;
}

/** 169.254.0.0/16 and fe80::/10: cloud metadata services live there; no redirect may lead to them. */
export function isLinkLocal(host: string): boolean {
  const h = bare(host);
  return /^169\.254\./.test(h) || h.startsWith('fe80:');
}
