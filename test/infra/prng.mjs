/**
 * A deterministic 32-bit generator (mulberry32) for what tests and the bench choose "at random" (chunk sizes, file
 * sizes and names) and must choose the same way on every run. Not for data that has to be incompressible.
 */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
