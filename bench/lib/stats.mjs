// What every benchmark computes the same way (bench/run.mjs runs bench/*.mjs only, not this folder).

/** The median: the middle value, or the mean of the two middle ones. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Least-squares slope and intercept of y over x, over all the points ([x, y] pairs). */
export function leastSquares(points) {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/**
 * The Theil-Sen slope: the median of the slopes between every two points of
 * different x. One point in three can be an outlier (a session the machine's
 * load slowed) without moving it far, where it drags a least-squares line.
 */
export function theilSen(points) {
  const slopes = [];
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++)
      if (points[j][0] !== points[i][0]) slopes.push((points[j][1] - points[i][1]) / (points[j][0] - points[i][0]));
  return slopes.length ? median(slopes) : NaN;
}
