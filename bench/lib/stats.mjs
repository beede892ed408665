// What every benchmark computes the same way (bench/run.mjs runs bench/*.mjs only, not this folder).

/** The median: the middle value, or the mean of the two middle ones. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
