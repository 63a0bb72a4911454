import { describe, expect, it } from "@effect/vitest"
import { plural } from "../src/words.js"

describe("words", () => {
  it("a count and its noun agree", () => {
    expect(plural(1, "game")).toBe("1 game")
    expect(plural(0, "game")).toBe("0 games")
    expect(plural(2, "recording")).toBe("2 recordings")
    expect(plural(3, "game", "gamez")).toBe("3 gamez")
  })
})
