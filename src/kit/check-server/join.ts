import { Effect } from "effect"
import type { UdpError } from "../../net/udp.js"
import type { Blocked } from "../conformance/check.js"
import { type Stop, stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./client.js"
import { awkwardName } from "./names.js"
import type { Arrival } from "./probe.js"
import type { ServerCheck, ServerContext, ServerRecorder } from "./server-check.js"

/** Joining, as the spectator and as players, and what the server answers to keys and messages it cannot take. */

const wordOf = (arrival: Arrival) => arrival.kind

const listed = (arrivals: ReadonlyArray<Arrival>) =>
  arrivals.length === 0 ? "nothing" : arrivals.slice(0, 6).map((each) => escaped(each.text, 40)).join(", ")

/**
 * The first arrivals of a new client held against the order the spec gives: OK first (a
 * player's, with a capital letter), then GRID and GOLD, then a DISPLAY. What GOLD says is
 * judged elsewhere, once: gold-totals (every GOLD), new-player-drop (a player's first).
 */
export const checkWelcome = (context: ServerRecorder, client: Client, arrivals: ReadonlyArray<Arrival>, expected: ReadonlyArray<string>) => {
  const sent = client.probe.lastSent()
  const got = listed(arrivals)
  const words = arrivals.map(wordOf)
  for (const word of expected) {
    if (!words.includes(word)) {
      const spec = word === "OK" ? Requirements.ok : word === "GRID" ? Requirements.grid : word === "GOLD" ? (client.role === "player" ? Requirements.thenGridAndGold : Requirements.spectatorGridGold) : Requirements.display
      context.fail({ what: `no ${word} came to the new ${client.role}`, sent, got, spec })
    }
  }
  const order = words.filter((word) => expected.includes(word))
  const firstOf = (word: string) => order.indexOf(word)
  // A DISPLAY first is one fact, whatever else it comes before.
  const displayFirst = order[0] === "DISPLAY" && order.length > 1
  if (displayFirst) {
    context.fail({ what: `the DISPLAY came first, before ${order.slice(1).filter((word) => word !== "DISPLAY").join(", ")}: a client cannot know the grid's size before GRID`, sent, got, spec: client.role === "player" ? Requirements.ok : Requirements.grid })
  } else if (client.role === "player" && order.length > 0 && order[0] !== "OK") {
    context.fail({ what: `the answer to PLAY began with ${order[0]}, not OK`, sent, got, spec: Requirements.ok })
  }
  const ok = arrivals.find((each) => wordOf(each) === "OK")
  if (ok !== undefined && !/^OK [A-Z]$/.test(ok.text)) {
    const letter = /^OK[ \t]*(\S*)/.exec(ok.text)?.[1] ?? ""
    context.fail({
      what: /^[a-z]$/.test(letter) ? `the letter in OK is lower case, '${letter}': the spec's letters are A to Z` : "OK is not OK and one capital letter",
      sent,
      got: escaped(ok.text),
      spec: Requirements.ok
    })
  }
  if (!displayFirst && firstOf("GRID") !== -1 && firstOf("DISPLAY") !== -1 && firstOf("DISPLAY") < firstOf("GRID")) {
    context.fail({ what: "DISPLAY came before GRID: a client cannot know the grid's size first", sent, got, spec: Requirements.grid })
  }
  if (!displayFirst && firstOf("GOLD") !== -1 && firstOf("DISPLAY") !== -1 && firstOf("DISPLAY") < firstOf("GOLD")) {
    context.fail({
      what: "GOLD came after the DISPLAY: the spec sends GRID and GOLD first (a client that draws its status line with each DISPLAY shows no purse yet)",
      sent,
      got,
      spec: client.role === "player" ? Requirements.thenGridAndGold : Requirements.spectatorGridGold
    })
  }
  if (client.role === "spectator" && firstOf("GOLD") !== -1 && firstOf("GOLD") < firstOf("GRID")) {
    context.fail({ what: "GOLD came before GRID", sent, got, spec: Requirements.spectatorGridGold })
  }
  if (client.role === "spectator" && words.includes("OK")) {
    context.fail({ what: "the spectator was given a letter", sent, got, spec: Requirements.spectatorNotShown })
  }
}

/** Everything a new client is sent on joining, until all `expected` kinds have come or the wait ends. */
const welcome = (context: ServerRecorder, client: Client, expected: ReadonlyArray<string>) =>
  client.probe.gather(context.answerMs, (arrivals) => {
    const words = arrivals.map(wordOf)
    return expected.every((word) => words.includes(word)) || client.report.ending !== undefined
  })

export const joinSpectator: ServerCheck<"join-spectator"> = {
  name: "join-spectator",
  title: "SPECTATE is answered with GRID, then GOLD, then a DISPLAY",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const client = yield* context.clients.open("spectator")
      yield* client.send("SPECTATE")
      const arrivals = yield* welcome(context, client, ["GRID", "GOLD", "DISPLAY"])
      if (arrivals.length === 0) {
        return yield* stop({
          what: client.probe.portClosed() ? "the server's port is closed: nothing listens there" : "the server did not answer SPECTATE",
          sent: escaped("SPECTATE"),
          got: client.probe.portClosed() ? "ICMP port unreachable" : `nothing within ${context.answerMs} ms`,
          spec: Requirements.spectatorGridGold
        })
      }
      checkWelcome(context, client, arrivals, ["GRID", "GOLD", "DISPLAY"])
      return client
    })
}

export const joinPlayer: ServerCheck<"join-player"> = {
  name: "join-player",
  title: "PLAY is answered with OK L, then GRID and GOLD, then a DISPLAY",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const client = yield* context.clients.open("player", "nuggets check")
      yield* client.send("PLAY nuggets check")
      const arrivals = yield* welcome(context, client, ["OK", "GRID", "GOLD", "DISPLAY"])
      if (arrivals.length === 0) {
        return yield* stop({ what: "the server did not answer PLAY", sent: escaped("PLAY nuggets check"), got: `nothing within ${context.answerMs} ms`, spec: Requirements.ok })
      }
      if (client.report.ending?._tag === "Refused") {
        return yield* stop({ what: "the server refused the first player", sent: escaped("PLAY nuggets check"), got: listed(arrivals), spec: Requirements.ok })
      }
      checkWelcome(context, client, arrivals, ["OK", "GRID", "GOLD", "DISPLAY"])
      return client
    })
}

/**
 * A player to try things with: the `index`-th of the checker's players still in the game
 * whose place is known (its own DISPLAY shows it, or the spectator's), or a new one.
 */
export const somePlayer = (context: ServerRecorder, index = 0): Effect.Effect<Client, Stop | UdpError> =>
  Effect.suspend(() => {
    const { clients } = context
    const active = clients.activePlayers.filter((client) => client.name !== awkwardName && clients.whereIs(client) !== undefined)
    const found = active[index]
    return found ? Effect.succeed(found) : clients.joinPlayer(`checker ${clients.all.length + 1}`)
  })

/** The player join-player let in, while it is still in the game and its place is known; else another. */
export const firstPlayer = (context: ServerContext<"join-player">): Effect.Effect<Client, Stop | Blocked | UdpError> =>
  context.need("join-player").pipe(
    Effect.flatMap((given) =>
      context.clients.activePlayers.includes(given) && context.clients.whereIs(given) !== undefined ? Effect.succeed(given) : somePlayer(context, 0)
    )
  )

/** What may answer a message the server cannot take: NO (or ERROR in 2021), or nothing. */
const refusalForm = (context: ServerRecorder, arrivals: ReadonlyArray<Arrival>, sent: string, label: string) => {
  const dialect = context.traffic.dialect
  for (const arrival of arrivals) {
    const word = wordOf(arrival)
    if (word === "DISPLAY" || word === "GOLD") continue
    const allowed = dialect === "2021" ? ["ERROR"] : dialect === "2019" ? ["NO"] : ["NO", "ERROR"]
    if (!allowed.includes(word)) {
      context.fail({
        what: `${label} was answered with ${word}, not ${allowed.join(" or ")}${dialect === "2021" ? " (the 2021 dialect)" : ""}`,
        sent,
        got: escaped(arrival.text),
        spec: Requirements.no
      })
    }
  }
}

export const unknownKeys: ServerCheck<"unknown-keys", "join-spectator" | "join-player"> = {
  name: "unknown-keys",
  title: "unknown keys, and move keys from the spectator, move nothing; the answer is NO (ERROR in 2021) or none",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const player = yield* firstPlayer(context)
      // A server that answers unknown keys has the whole answer time for each, so that a slow
      // answer is not taken for the next key's; one that answered none so far, a moment.
      let answers = true
      for (const key of ["z", "0", "!"]) {
        const before = player.report.position
        player.probe.skipAll()
        yield* player.send(`KEY ${key}`)
        const arrivals = yield* player.probe.gather(answers ? context.answerMs : Math.min(250, context.answerMs), answered)
        answers = answered(arrivals)
        const after = player.report.position
        if (before && after && (before.row !== after.row || before.col !== after.col)) {
          context.fail({ what: `the unknown key '${key}' moved the player`, sent: escaped(`KEY ${key}`), got: listed(arrivals), spec: Requirements.moveKeys })
        }
        if (player.report.ending) {
          return yield* stop({ what: `the unknown key '${key}' ended the player's game`, sent: escaped(`KEY ${key}`), got: listed(arrivals), spec: Requirements.no })
        }
        refusalForm(context, arrivals, escaped(`KEY ${key}`), `the unknown key '${key}'`)
      }
      const spectator = yield* context.clients.watch()
      spectator.probe.skipAll()
      yield* spectator.send("KEY h")
      const reply = yield* spectator.probe.gather(Math.min(250, context.answerMs), answered)
      if (spectator.report.ending) {
        // Told to go: the next check that watches lets another spectator in.
        context.fail({ what: "a move key from the spectator ended its session", sent: escaped("KEY h"), got: listed(reply), spec: Requirements.spectatorQuitKey })
      }
      refusalForm(context, reply, escaped("KEY h"), "a move key from the spectator")
      // A server that died of it is found, and named, when the next datagram draws "port unreachable".
    })
}

/** An answer that ends the wait for one: a refusal, or a QUIT. */
const answered = (arrivals: ReadonlyArray<Arrival>) => arrivals.some((each) => ["NO", "ERROR", "QUIT"].includes(wordOf(each)))

/** Datagrams no server can take, and what must survive them. */
const garbage: ReadonlyArray<readonly [string, string | Uint8Array]> = [
  ["an empty datagram", new Uint8Array(0)],
  ["an unknown message type", "HELLO"],
  ["KEY with no key", "KEY"],
  ["KEY with two keys", "KEY hh"],
  ["a message type in lower case", "play lowercase"],
  ["binary bytes", Uint8Array.from([0xff, 0x00, 0xfe, 0x0a, 0x80])],
  ["a datagram of 65,507 bytes", "KEY " + "h".repeat(65503)]
]

export const badMessages: ServerCheck<"bad-messages", "join-spectator" | "join-player"> = {
  name: "bad-messages",
  title: "garbage, empty, malformed and huge datagrams are refused or ignored, and the server goes on",
  needs: ["join-spectator", "join-player"],
  freshGame: true,
  run: (context) =>
    Effect.gen(function*() {
      const { clients } = context
      const player = yield* firstPlayer(context)
      const stranger = yield* clients.open("player")
      for (const [what, datagram] of garbage) {
        for (const from of [player, stranger]) {
          from.probe.skipAll()
          yield* from.send(datagram)
          const arrivals = yield* from.probe.gather(Math.min(150, context.answerMs), (got) => answered(got) || from.probe.portClosed())
          // The port closed: the server died of something sent before, which the run finds and names.
          if (from.probe.portClosed()) return
          const sender = from === player ? "a player" : "a client that never joined"
          refusalForm(context, arrivals, from.probe.lastSent(), `${what} from ${sender}`)
          if (from === player && player.report.ending) {
            return yield* stop({ what: `${what} ended the player's game`, sent: from.probe.lastSent(), got: listed(arrivals), spec: Requirements.no })
          }
        }
      }
      // Still alive: a new spectator is let in as ever (it takes the old one's place; the checks go on with it).
      const alive = yield* clients.open("spectator")
      yield* alive.send("SPECTATE")
      const welcomed = yield* alive.probe.gather(context.answerMs, () => alive.report.view !== undefined || alive.probe.portClosed())
      if (alive.report.view === undefined && !alive.probe.portClosed()) {
        return yield* stop({ what: "after these datagrams the server no longer answers", sent: escaped("SPECTATE"), got: listed(welcomed), spec: Requirements.reactToMessages })
      }
    })
}
