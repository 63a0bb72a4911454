import { describe, expect, it } from "vitest"
import { makeLogLimiter } from "../src/net/logLimit.js"

describe("the log's limits per source", () => {
  const limits = { perSource: 2, total: 3, window: 1000, summaries: 1 }

  it("lets each source's first lines through, then counts the rest, within a cap for all sources", () => {
    const limiter = makeLogLimiter(limits)
    expect(["a", "a", "a", "b", "c", "c"].map((source) => limiter.admit(source, 10).log))
      .toEqual([true, true, false, true, false, false])
  })

  it("says how many it held back when the window ends: at the next line, or when flushed", () => {
    const limiter = makeLogLimiter(limits)
    for (let i = 0; i < 5; i++) limiter.admit("a", 0)
    for (let i = 0; i < 3; i++) limiter.admit("b", 0)
    expect(limiter.flush(999)).toEqual([])
    const next = limiter.admit("a", 1500)
    expect(next).toEqual({
      log: true,
      held: ["a: 3 more lines in the last 2 s, not logged", "1 other source: 2 more lines in the last 2 s, not logged"]
    })
    expect(limiter.flush(2600)).toEqual([])
    expect(limiter.flush(2600, true)).toEqual([])
  })
})
