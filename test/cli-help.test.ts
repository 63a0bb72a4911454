import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import type { CommandNode } from "../src/cli/command.js"
import { renderHelp } from "../src/cli/help.js"
import { nuggets } from "../src/cli/nuggets.js"
import { projectDir } from "./cli/process.js"

/** Every command, with its path. */
const commands = <R, E>(node: CommandNode<R, E>, path: ReadonlyArray<string> = []): Array<[ReadonlyArray<string>, CommandNode<R, E>]> => {
  const here = [...path, node.name]
  return [[here, node], ...(node.children ?? []).flatMap((child) => commands(child, here))]
}

const words = (text: string) => text.split(/\s+/).filter(Boolean)

describe("help", () => {
  it("names each command by its full path, describes every argument and option, and shows no type boilerplate", () => {
    for (const [path, node] of commands(nuggets)) {
      const text = renderHelp(path, node, { colour: false, width: 1000 })
      expect(text.startsWith(`Usage: ${path.join(" ")}`), path.join(" ")).toBe(true)
      expect(text).not.toMatch(/user-defined|This setting is optional|wizard|\x1b/)
      for (const entry of [...(node.help.args ?? []), ...(node.help.options ?? [])]) {
        expect(entry.text.length, `${path.join(" ")} ${entry.term}`).toBeGreaterThan(10)
        expect(text).toContain(entry.term)
      }
    }
  })

  it("fits the width it is given, breaking lines only between words", () => {
    for (const [path, node] of commands(nuggets)) {
      const unwrapped = renderHelp(path, node, { colour: false, width: 1000 })
      for (const width of [40, 60, 80, 120]) {
        const text = renderHelp(path, node, { colour: false, width })
        const name = `${path.join(" ")} at ${width} columns`
        for (const line of text.split("\n")) expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(width)
        // The same words in the same order: none was cut.
        expect(words(text), name).toEqual(words(unwrapped))
      }
    }
  })

  it("lists the keys under the commands that play, and defaults where there are some", () => {
    const byName = new Map(commands(nuggets).map(([path, node]) => [path.join(" "), node]))
    for (const name of ["nuggets join", "nuggets play"]) {
      expect(renderHelp([name], byName.get(name)!, { colour: false, width: 80 })).toMatch(/Keys:[\s\S]*Q +quit/)
    }
    const serve = byName.get("nuggets serve")!
    expect(renderHelp(["nuggets", "serve"], serve, { colour: false, width: 80 })).toContain("(default: 0)")
    expect(renderHelp(["nuggets", "serve"], serve, { colour: true, width: 80 })).toContain("\x1b[1mUsage:\x1b[0m")
  })
})

describe("the README", () => {
  it("lists every option of every command in its table of commands", () => {
    const readme = readFileSync(`${projectDir}README.md`, "utf8")
    const table = readme.slice(readme.indexOf("## Commands"), readme.indexOf("\n## ", readme.indexOf("## Commands") + 1))
    for (const [path, node] of commands(nuggets)) {
      if (!node.command) continue
      const row = table.split("\n").find((line) => line.startsWith(`| \`${path.join(" ")} `))
      expect(row, path.join(" ")).toBeDefined()
      for (const option of node.command.options) expect(row, `${path.join(" ")} ${option.flag}`).toContain(option.flag)
    }
  })
})
