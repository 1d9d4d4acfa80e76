/** A deterministic generator of numbers in [0, 1) from a 32-bit seed (mulberry32). */
export function prng(seed: number): () => number;
