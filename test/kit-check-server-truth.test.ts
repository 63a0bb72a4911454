import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import { parseMap } from "../src/core/map.js"
import { rules2021 } from "../src/core/rules.js"
import { differingCells, likelyCause, neighbourhood } from "../src/kit/check-server/sight-causes.js"
import { entryBytes, latin1, parseTranscript } from "../src/protocol/transcript.js"
import { brokenServer } from "./kit/broken.js"
import { failsWith, mainMap, resultOf, run, statuses } from "./kit/checkServer.js"

/**
 * `check server` tells the truth: real defects of CS50 servers that the checker missed, each
 * found (a server broken on purpose, one defect each); what checkers once got wrong on
 * healthy servers, each now right; and a server with framing defects read liberally, each
 * defect reported once and nothing else failed for it.
 */

/** Clients by the relay's number: 1 is the spectator of join-spectator, 2 the player of join-player. */
const spectator = 1

/** The awkward name of `names` as Aadil101/nuggets's server (2019) put it in its summary: whole, control character and all. */
const aadilName = (() => {
  const file = readFileSync("test/fixtures/peers/Aadil101+nuggets.names.ndjson", "utf8")
  const transcript = Either.getOrThrow(parseTranscript(file))
  const over = transcript.entries.map((entry) => latin1(entryBytes(entry))).find((text) => text.startsWith("GAMEOVER"))!
  return /Bell\S*/.exec(over)![0]
})()

describe.concurrent("each side by side: a server with its defects, one check server run each", () => {
  describe.concurrent("check server finds what it once missed", () => {
    it.scopedLive("new-player-drop: a player dropped on a pile, its first GOLD GOLD 77 77 173", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("new-player-drop", {
          down: (text, { fromClient, fromServer }) => (fromClient[0] === "PLAY nuggets check" && fromServer.length <= 4 && /^GOLD 0 0 250$/.test(text) ? "GOLD 77 77 173" : text)
        })
        expect(failures[0]).toMatchObject({
          what: "player A's first GOLD says n=77 p=77: it was dropped on a pile and collected it, where a new player is dropped on an empty spot",
          got: `"GOLD 77 77 173"`,
          spec: { line: "26" }
        })
      }), 60_000)

    it.scopedLive("names: a name cut at its first space, and one not ended (bytes past it)", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("names", {
          down: (text) => (text.startsWith("GAMEOVER") ? text.replace("nuggets check", "nuggets").replace(/(Bell_and[-a-z]*)/, (name: string) => `${name.slice(0, 50)}      Q`) : text)
        })
        expect(failures.map((failure) => failure.what)).toEqual([
          expect.stringMatching(/^the name of player [A-Z]: it came back 57 characters long: the 50 it should be, then " {6}Q": bytes past the name's end \(the name was not ended\)$/),
          `the name of player A: it was cut at its first space: "nuggets check" came back as "nuggets" (everything after PLAY and one space is the name)`
        ])
      }), 60_000)

    it.scopedLive("quit: a spectator told QUIT after its Q, and still sent the game", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("quit", {
          // The server never hears this spectator's Q: it goes on sending it everything.
          answer: (text, { fromClient }) => (text === "KEY Q" && fromClient[0] === "SPECTATE" ? ["QUIT Thanks for watching!"] : undefined)
        })
        expect(failures[0]).toMatchObject({
          what: expect.stringMatching(/^the spectator pressed Q and was told QUIT, but it is still sent messages \(\d+ after a move by player A\)$/),
          spec: { line: "412-414" }
        })
      }), 60_000)

    it.scopedLive("quit: Q ignored, only q quits", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("quit", { up: (text) => (text === "KEY Q" ? "KEY z" : text === "KEY q" ? "KEY Q" : text) })
        expect(failures[0]).toMatchObject({ what: expect.stringMatching(/^player [A-Z] pressed Q and nothing happened; q quits: the spec's key is Q$/), sent: `"KEY Q"` })
      }), 60_000)

    it.scopedLive("join-player: GOLD sent after the DISPLAY at a join", () =>
      Effect.gen(function*() {
        let held: string | undefined
        const failures = yield* failsWith("join-player", {
          down: (text, { fromServer }) => {
            if (fromServer.length <= 3 && text.startsWith("GOLD")) return void (held = text)
            if (text.startsWith("DISPLAY") && held !== undefined) return [text, held]
            return text
          }
        })
        expect(failures).toEqual([expect.objectContaining({ what: expect.stringMatching(/^GOLD came after the DISPLAY: the spec sends GRID and GOLD first/), spec: expect.objectContaining({ line: "350" }) })])
      }), 60_000)

    it.scopedLive("join-player: OK with a lower-case letter", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("join-player", { down: (text) => text.replace(/^OK ([A-Z])$/, (_, letter: string) => `OK ${letter.toLowerCase()}`) })
        expect(failures).toEqual([expect.objectContaining({ what: "the letter in OK is lower case, 'a': the spec's letters are A to Z", got: `"OK a"`, spec: expect.objectContaining({ line: "344-348" }) })])
      }), 60_000)

    it.scopedLive("message-form: QUIT texts that lose their last character", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("message-form", { down: (text) => (/^QUIT (?!GAME OVER)/.test(text) ? text.slice(0, -1) : text) })
        expect(failures[0]!.what).toMatch(/^QUIT texts lose their last character: "[^"]+", "[^"]+"/)
      }), 60_000)

    it.scopedLive("occupants-drawn: gold drawn over a player in the spectator's view", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("occupants-drawn", {
          down: (text, { client }) => (client === spectator && text.startsWith("DISPLAY\n") ? "DISPLAY\n" + text.slice(8).replaceAll("A", "*") : text)
        })
        expect(failures[0]).toMatchObject({ what: expect.stringMatching(/^the spectator shows '\*' where player A stands \(its own DISPLAY last put it at row \d+ col \d+\), and A nowhere: gold drawn over a player$/) })
      }), 60_000)

    it.scopedLive("no-stale-view: a server that skips a DISPLAY it owed a player that stands still", () =>
      Effect.gen(function*() {
        // A DISPLAY to a player that did not press a key since its last one is not sent (the spectator's still are).
        const keysAtLastView = new Map<number, number>()
        const failures = yield* failsWith("no-stale-view", {
          down: (text, { client, fromClient, fromServer }) => {
            const keys = fromClient.filter((each) => each.startsWith("KEY")).length
            if (!text.startsWith("DISPLAY") || client === spectator) return text
            if (fromServer.length <= 4) {
              keysAtLastView.set(client, keys)
              return text
            }
            if (keysAtLastView.get(client) === keys) return undefined
            keysAtLastView.set(client, keys)
            return text
          }
        }, { map: mainMap })
        expect(failures[0]).toMatchObject({
          what: expect.stringMatching(/^player [A-Z]'s last DISPLAY no longer shows the game as it stands: it was right when it came, but after KEY [a-z] from player [A-Z] \d+ gridpoints in its view changed, and the DISPLAY the server owed it never came$/),
          spec: { line: "67" }
        })
        expect(failures[0]!.detail!.some((line) => line.includes("^"))).toBe(true)
      }), 60_000)
  })

  describe.concurrent("check server no longer gets these wrong", () => {
    // The 2019 spec has the player cut a long name (lines 83, 338), not the server: only the 2021 dialect's server must.
    for (const [dialect, verdict] of [["2019", "warned"], ["2021", "failed"]] as const) {
      it.scopedLive(`names: a ${dialect} server that keeps a 60-character name whole, as Aadil101/nuggets did, is ${verdict} for its length`, () =>
        Effect.gen(function*() {
          const { port } = yield* brokenServer({ dialect, bugs: { down: (text) => text.replace(/Bell_and[-a-z]*/, aadilName) } })
          const result = resultOf(yield* run(port, { only: "names", dialect }), "names")
          const notCut = { what: expect.stringMatching(/^the name of player [A-Z]: it was not cut: it came back 60 characters long, more than 50/) }
          expect(aadilName).toHaveLength(60)
          expect(result.failures.map((failure) => failure.what)).toEqual([
            "the name in the summary holds a character that cannot be printed",
            ...(verdict === "failed" ? [notCut.what] : [])
          ])
          expect(result.warnings).toEqual(verdict === "warned" ? [expect.objectContaining({ ...notCut, spec: expect.objectContaining({ line: "338" }) })] : [])
        }), 60_000)
    }

    it.scopedLive("a spectator not shown a newcomer (the spec asks for no DISPLAY at a join): swap and quit still judged", () =>
      Effect.gen(function*() {
        let joining = false
        const { port } = yield* brokenServer({
          bugs: {
            up: (text) => ((joining ||= text.startsWith("PLAY")), text),
            down: (text, { client }) => {
              if (client !== spectator || !joining || !text.startsWith("DISPLAY")) return text
              joining = false
              return undefined
            }
          }
        })
        for (const only of ["swap", "quit"] as const) {
          const report = yield* run(port, { only })
          expect(resultOf(report, only), only).toMatchObject({ status: "pass" })
        }
      }), 60_000)

    it.scopedLive("game-over: the last nugget answered by the game over alone, which reaches the spectator after the player", () =>
      Effect.gen(function*() {
        const over = new Set<number>()
        const { port } = yield* brokenServer({
          bugs: {
            // After the last pickup no DISPLAY, and the spectator's game over comes late.
            down: (text, { client }) => {
              if (text.startsWith("GOLD") && / 0$/.test(text)) over.add(client)
              if (over.has(client) && text.startsWith("DISPLAY")) return undefined
              return text
            },
            rules: [{ dir: "down", match: (text, info) => text.startsWith("GAMEOVER") && info.client.endsWith("#1"), action: { kind: "delay", ms: 150 } }]
          }
        })
        const report = yield* run(port, { only: "game-over" })
        expect(resultOf(report, "game-over")).toMatchObject({ status: "pass", failures: [] })
      }), 60_000)

    it.scopedLive("game-over: a spectator told to quit mid-game is not taken for the end of the game", () =>
      Effect.gen(function*() {
        const { port } = yield* brokenServer({
          bugs: { down: (text, { client, fromServer }) => (client === spectator && fromServer.length === 30 ? "QUIT You have been replaced by a new spectator." : text) }
        })
        const report = yield* run(port, { only: "game-over" })
        expect(resultOf(report, "game-over")).toMatchObject({ status: "pass", failures: [] })
      }), 60_000)

    it.scopedLive("game-over: a server that never says the game is over fails once, saying so, without waiting on each client in turn", () =>
      Effect.gen(function*() {
        const failures = yield* failsWith("game-over", { down: (text) => (text.startsWith("GAMEOVER") ? undefined : text) })
        expect(failures).toEqual([
          expect.objectContaining({ what: expect.stringMatching(/^the spectator shows no gold left \(its last GOLD says 0 left\), but no client got a game over within 2000 ms$/) })
        ])
      }), 60_000)

    it.scopedLive("game-over: a server whose moves went wrong earlier (it stops hearing its first player once another joins) is not failed for a game that cannot be played to its end", () =>
      Effect.gen(function*() {
        let deaf = false
        const { port } = yield* brokenServer({
          bugs: { up: (text, { client }) => ((deaf ||= text === "PLAY leaver"), deaf && client === 2 && text.startsWith("KEY") && text !== "KEY Q" ? undefined : text) }
        })
        const report = yield* run(port)
        expect(resultOf(report, "quit").status).toBe("fail")
        expect(resultOf(report, "game-over")).toMatchObject({
          status: "not run",
          notRun: expect.stringMatching(/^the game could not be played to its end: three moves in a row went wrong \(the last: KEY [a-z] from row \d+ col \d+ should take the player to .*\); that is for the checks of moves and drawing to judge/)
        })
      }), 60_000)

    it.scopedLive("visibility: with the dialect never told, views are judged by the rule they follow, and the report says which", () =>
      Effect.gen(function*() {
        const { port } = yield* brokenServer({
          rules: rules2021,
          seed: 2,
          bugs: { down: (text) => (text.startsWith("NO") || text.startsWith("GAMEOVER") ? undefined : text) }
        })
        const report = yield* run(port, { only: "visibility", map: mainMap })
        expect(report.about[0]).toMatch(/^dialect: unknown/)
        const result = resultOf(report, "visibility")
        expect(result).toMatchObject({ status: "pass", failures: [] })
        expect(result.notes).toEqual([
          expect.stringMatching(/^\d+ player views held against the 2021 rule \(sight through room spots only\) \(the dialect is not known: the rule its views follow\)$/),
          expect.stringMatching(/^its views follow the 2021 rule \(sight through room spots only\): (\d+) of \1 agree/)
        ])
      }), 60_000)
  })

  describe.concurrent("check server reads a server as liberally as our client: each framing defect once, nothing else failed for it", () => {
    it.scopedLive("OK a, DISPLAY \\n and rows padded with a blank column", () =>
      Effect.gen(function*() {
        const { port } = yield* brokenServer({
          bugs: {
            down: (text) => {
              const ok = text.replace(/^OK ([A-Z])$/, (_, letter: string) => `OK ${letter.toLowerCase()}`)
              if (!ok.startsWith("DISPLAY\n")) return ok
              return "DISPLAY \n" + ok.slice("DISPLAY\n".length).replaceAll("\n", " \n")
            }
          }
        })
        const report = yield* run(port, { map: mainMap })
        const failed = report.checks.filter((check) => check.status !== "pass")
        expect(failed.map((check) => check.name)).toEqual(["join-player", "display-framing"])
        expect(resultOf(report, "join-player").failures.map((failure) => failure.what)).toEqual(["the letter in OK is lower case, 'a': the spec's letters are A to Z"])
        expect(resultOf(report, "display-framing").failures.map((failure) => failure.what)).toEqual([
          expect.stringMatching(/^the DISPLAY is 21x80, GRID said 21x79: its rows are 80 characters, longer than GRID's 79 columns \(padded with blanks\) \(and \d+ more like it\), sent to spectator 1$/),
          expect.stringMatching(/^the DISPLAY begins "DISPLAY \\n", not DISPLAY and a newline \(and \d+ more like it\), sent to spectator 1$/)
        ])
        expect(statuses(report)).toMatchObject({ visibility: "pass", "no-stale-view": "pass", "game-over": "pass", names: "pass" })
      }), 120_000)

    it.scopedLive("GRID a column wider than the map, and a player's DISPLAY on one line of rows a column narrower than GRID, each ended by a space", () =>
      Effect.gen(function*() {
        const { port } = yield* brokenServer({
          bugs: {
            down: (text) => {
              if (text === "GRID 21 79") return "GRID 21 80"
              if (!text.startsWith("DISPLAY\n") || !text.includes("@")) return text
              return "DISPLAY " + text.slice("DISPLAY\n".length).replaceAll("\n", " ")
            }
          }
        })
        const report = yield* run(port, { map: mainMap })
        const failed = report.checks.filter((check) => check.status !== "pass")
        expect(failed.map((check) => check.name)).toEqual(["display-framing"])
        expect(resultOf(report, "display-framing").failures.map((failure) => failure.what)).toEqual([
          "GRID says 21x80, but the map the server was started with (--map) is 21x79 (its DISPLAYs are 21x79)",
          expect.stringMatching(/^the DISPLAY is 21x79, GRID said 21x80: its rows are 79 characters, shorter than GRID's 80 columns \(and \d+ more like it\), sent to spectator 1$/),
          expect.stringMatching(/^the DISPLAY is one line of 1680 characters, not GRID's 21 rows \(and \d+ more like it\), sent to player 2$/)
        ])
      }), 120_000)
  })
})

describe("a visibility failure, for graders", () => {
  const map = Either.getOrThrow(parseMap(["+-----+", "|.....|", "|.....#####", "+-----+"].join("\n")))
  // A player in the passage, shown none of the room it looks into, which the rule shows.
  const expected = ["+-----+    ", "|.....|    ", "|.....##@##", "+-----+    "]
  const got = ["           ", "           ", "      ##@##", "           "]
  const differences = differingCells(expected, got)

  it("the cells that differ, side by side, with a mark under each", () => {
    expect(neighbourhood(expected, got, { row: 2, col: 8 }, differences, 4, 11)).toEqual([
      "rows 0-3, cols 0-10 (@ at row 2 col 8):",
      "      the rule gives   it was shown   differs",
      "    0 +-----+                     ^^^^^^^",
      "    1 |.....|                     ^^^^^^^",
      "    2 |.....##@##         ##@##   ^^^^^^",
      "    3 +-----+                     ^^^^^^^"
    ])
  })

  it("the likely cause, when one explains nearly all the views that first differ", () => {
    expect(likelyCause(map, "allSpots", [{ at: { row: 2, col: 8 }, differences, expected, got }])).toBe(
      "sight from a passage spot: a player in a passage is shown less than the rule sees from there (it explains 100% of the 1 views where a player's view first differs)"
    )
    // Gold shown where the rule sees none: kept in the player's memory of the map.
    const remembered = ["+-----+    ", "|..*..|    ", "|.....##@##", "+-----+    "]
    expect(likelyCause(map, "allSpots", [{ at: { row: 2, col: 8 }, differences: differingCells(expected, remembered), expected, got: remembered }])).toMatch(
      /^players or gold shown out of sight: kept in a player's memory of the map/
    )
  })
})
