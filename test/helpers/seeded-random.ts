/** A deterministic sequence of numbers in [0, 1) from `seed`: a test's random choices repeat when it fails. */
export function seededRandom(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}
