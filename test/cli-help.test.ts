import { describe, expect, it } from "vitest"
import { nuggets } from "../src/cli/nuggets.js"
import { type CommandNode, helpMismatches, renderHelp } from "../src/cli/runner.js"

/** Every command, with its path. */
const commands = <R, E>(node: CommandNode<R, E>, path: ReadonlyArray<string> = []): Array<[ReadonlyArray<string>, CommandNode<R, E>]> => {
  const here = [...path, node.name]
  return [[here, node], ...(node.children ?? []).flatMap((child) => commands(child, here))]
}

describe("help", () => {
  it("lists exactly the options each command parses (read from @effect/cli's own usage)", () => {
    expect(helpMismatches(nuggets)).toEqual([])
  })

  it("names each command by its full path, describes every argument and option, and shows no type boilerplate", () => {
    for (const [path, node] of commands(nuggets)) {
      const text = renderHelp(path, node, false)
      expect(text.startsWith(`Usage: ${path.join(" ")}`), path.join(" ")).toBe(true)
      expect(text).not.toMatch(/user-defined|This setting is optional|wizard|\x1b/)
      for (const entry of [...(node.help.args ?? []), ...(node.help.options ?? [])]) {
        expect(entry.text.length, `${path.join(" ")} ${entry.term}`).toBeGreaterThan(10)
        expect(text).toContain(entry.term)
      }
    }
  })

  it("lists the keys under the commands that play, and defaults where there are some", () => {
    const byName = new Map(commands(nuggets).map(([path, node]) => [path.join(" "), node]))
    for (const name of ["nuggets join", "nuggets play"]) {
      expect(renderHelp([name], byName.get(name)!, false)).toMatch(/Keys:[\s\S]*Q +quit/)
    }
    expect(renderHelp(["nuggets", "serve"], byName.get("nuggets serve")!, false)).toContain("(default: 0)")
    expect(renderHelp(["nuggets", "serve"], byName.get("nuggets serve")!, true)).toContain("\x1b[1mUsage:\x1b[0m")
  })
})
