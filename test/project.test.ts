import { describe, expect, it } from "vitest"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { installCommand, locate, missingLine, systemPrograms } from "../scripts/programs.js"
import { projectDir } from "./cli/process.js"

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

  it("the README's test command is what CI runs after npm ci, and the README names the packages that command installs", () => {
    const command = /Run the tests:\n\n```\n(.+)\n```/.exec(read("README.md"))?.[1]
    expect(command).toBe("npm test")
    expect(read(".ci/run").trimEnd().split("\n").slice(-2)).toEqual(["npm ci", command])
    expect(read("README.md")).toContain(installCommand(systemPrograms))
  })

  it("a program the tests run is found on PATH or at a path with a version folder, and a missing one is named in one line with its package", () => {
    const dir = mkdtempSync(join(tmpdir(), "nuggets-programs-"))
    try {
      for (const version of ["9.6", "15", "16"]) {
        mkdirSync(join(dir, version, "bin"), { recursive: true })
        writeFileSync(join(dir, version, "bin/initdb"), "", { mode: 0o755 })
      }
      const initdb = { name: "initdb", at: `${dir}/*/bin/initdb`, debianPackage: "postgresql" }
      // The newest version's.
      expect(locate(initdb)).toBe(join(dir, "16/bin/initdb"))
      expect(locate({ ...initdb, at: `${dir}/*/bin/pg_ctl` })).toBeUndefined()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(locate({ name: "sh", at: "sh", debianPackage: "dash" })).toMatch(/\/sh$/)
    const missing = [
      { name: "no-such-tool", at: "no-such-tool", debianPackage: "no-such-package" },
      { name: "chromium", at: "/nowhere/chromium", debianPackage: "chromium" },
      { name: "other-tool", at: "other-tool", debianPackage: "no-such-package" }
    ]
    expect(missingLine(missing)).toBe(
      "not found: no-such-tool, chromium at /nowhere/chromium, other-tool; the tests need them: sudo apt-get install -y no-such-package chromium"
    )
  })
})
