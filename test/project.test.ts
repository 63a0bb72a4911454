import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { projectDir } from "./cli/process.js"
import { requireTool } from "./tools.js"

/** What a new user and a packager meet first: the licence, the ignore list, what the tests need. */

const read = (name: string) => readFileSync(`${projectDir}${name}`, "utf8")

describe("the project", () => {
  it("has a LICENSE matching package.json's licence", () => {
    const { license } = JSON.parse(read("package.json")) as { license: string }
    expect(license).toBe("MIT")
    expect(read("LICENSE")).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /)
  })

  it(".gitignore names each path once", () => {
    const lines = read(".gitignore").split("\n").filter((line) => line.trim() !== "")
    expect(new Set(lines).size).toBe(lines.length)
  })

  it("the README says what the tests need besides Node.js, and a missing tool is named in one line", () => {
    const readme = read("README.md")
    expect(readme).toContain("sudo apt-get install tmux chromium")
    expect(() => requireTool("no-such-tool-for-nuggets", "no-such-package")).toThrow(
      new Error("no-such-tool-for-nuggets is not installed, and the tests need it: sudo apt-get install no-such-package (bash .ci/run does)")
    )
    expect(() => requireTool("/nowhere/chromium", "chromium")).toThrow(/^\/nowhere\/chromium is not installed/)
    expect(requireTool("sh", "dash")).toMatch(/\/sh$/)
  })
})
