/** Order statistics of a sample of durations, in the unit they were given. */
export const summarize = (samples: ReadonlyArray<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return { count: sorted.length, median: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! }
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits))
