import { Effect } from "effect"
import { MaxNameLength } from "../../core/constants.js"
import { escaped } from "../conformance/lint.js"
import type { Arrival } from "./probe.js"
import type { Failure } from "../conformance/report.js"
import { type Client, Stop, stop } from "./session.js"
import { Spec } from "../conformance/requirements.js"
import type { Step, StepContext } from "./step.js"

/** Joining, as the spectator and as players, and what the server answers to keys and messages it cannot take. */

const wordOf = (arrival: Arrival) => arrival.kind

const listed = (arrivals: ReadonlyArray<Arrival>) =>
  arrivals.length === 0 ? "nothing" : arrivals.slice(0, 6).map((each) => escaped(each.text, 40)).join(", ")

/** The first arrivals of a new client held against the order the spec gives. */
const checkWelcome = (context: StepContext, client: Client, arrivals: ReadonlyArray<Arrival>, expected: ReadonlyArray<string>) => {
  const sent = client.probe.lastSent()
  const got = listed(arrivals)
  const words = arrivals.map(wordOf)
  for (const word of expected) {
    if (!words.includes(word)) {
      const spec = word === "OK" ? Spec.ok : word === "GRID" ? Spec.grid : word === "GOLD" ? (client.role === "player" ? Spec.thenGridAndGold : Spec.spectatorGridGold) : Spec.display
      context.fail({ what: `no ${word} came to the new ${client.role}`, sent, got, spec })
    }
  }
  const order = words.filter((word) => expected.includes(word))
  const firstOf = (word: string) => order.indexOf(word)
  if (client.role === "player" && order.length > 0 && order[0] !== "OK") {
    context.fail({ what: `the answer to PLAY began with ${order[0]}, not OK`, sent, got, spec: Spec.ok })
  }
  if (firstOf("GRID") !== -1 && firstOf("DISPLAY") !== -1 && firstOf("DISPLAY") < firstOf("GRID")) {
    context.fail({ what: "DISPLAY came before GRID: a client cannot know the grid's size first", sent, got, spec: Spec.grid })
  }
  if (client.role === "spectator" && firstOf("GOLD") !== -1 && firstOf("GOLD") < firstOf("GRID")) {
    context.fail({ what: "GOLD came before GRID", sent, got, spec: Spec.spectatorGridGold })
  }
  if (client.role === "spectator" && words.includes("OK")) {
    context.fail({ what: "the spectator was given a letter", sent, got, spec: Spec.spectatorNotShown })
  }
  const gold = arrivals.find((each) => wordOf(each) === "GOLD")
  if (gold?.message?._tag === "Gold" && (gold.message.collected !== 0 || gold.message.purse !== 0)) {
    context.fail({ what: "the first GOLD to a new client must say n=0, p=0", sent, got: escaped(gold.text), spec: client.role === "player" ? Spec.gold : Spec.spectatorGold })
  }
}

/** Everything a new client is sent on joining, until all `expected` kinds have come or the wait ends. */
const welcome = (context: StepContext, client: Client, expected: ReadonlyArray<string>) =>
  client.probe.gather(context.session.answerMs, (arrivals) => {
    const words = arrivals.map(wordOf)
    return expected.every((word) => words.includes(word)) || client.report.ending !== undefined
  })

const joinSpectator: Step = {
  name: "join-spectator",
  check: "join-spectator",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const client = yield* session.open("spectator")
      session.spectator = client
      yield* client.probe.send("SPECTATE")
      const arrivals = yield* welcome(context, client, ["GRID", "GOLD", "DISPLAY"])
      if (arrivals.length === 0) {
        session.unreachable = true
        return yield* stop({
          what: client.probe.portClosed() ? "the server's port is closed: nothing listens there" : "the server did not answer SPECTATE",
          sent: escaped("SPECTATE"),
          got: client.probe.portClosed() ? "ICMP port unreachable" : `nothing within ${session.answerMs} ms`,
          spec: Spec.spectatorGridGold
        })
      }
      checkWelcome(context, client, arrivals, ["GRID", "GOLD", "DISPLAY"])
    })
}

const joinPlayer: Step = {
  name: "join-player",
  check: "join-player",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const client = yield* session.open("player", "nuggets check")
      yield* client.probe.send("PLAY nuggets check")
      const arrivals = yield* welcome(context, client, ["OK", "GRID", "GOLD", "DISPLAY"])
      if (arrivals.length === 0) {
        session.unreachable ||= client.probe.portClosed()
        return yield* stop({ what: "the server did not answer PLAY", sent: escaped("PLAY nuggets check"), got: `nothing within ${session.answerMs} ms`, spec: Spec.ok })
      }
      if (client.report.ending?._tag === "Refused") {
        return yield* stop({ what: "the server refused the first player", sent: escaped("PLAY nuggets check"), got: listed(arrivals), spec: Spec.ok })
      }
      checkWelcome(context, client, arrivals, ["OK", "GRID", "GOLD", "DISPLAY"])
      const map = session.options.map
      const at = client.report.position
      if (map && at && map.cells[at.row * map.cols + at.col] !== 0x2e) {
        context.fail({
          what: `the new player was dropped at row ${at.row} col ${at.col}, which the map has as '${String.fromCharCode(map.cells[at.row * map.cols + at.col]!)}', not a room spot`,
          sent: escaped("PLAY nuggets check"),
          got: listed(arrivals),
          spec: Spec.newPlayerDropped
        })
      }
    })
}

/** A name longer than the spec allows, with a character that cannot be printed in it. */
export const awkwardName = `Bell\x07${"and-a-very-long-name-".repeat(3)}`.slice(0, MaxNameLength + 10)

const namesJoin: Step = {
  name: "names-join",
  check: "names",
  needs: [],
  run: (context) =>
    context.session.joinPlayer(awkwardName).pipe(
      Effect.asVoid,
      Effect.catchIf((error): error is Stop => error instanceof Stop, (error) =>
        stop({ ...error.failure, what: `a player whose name is ${awkwardName.length} characters, one of them a control character, was not let in`, spec: Spec.play }))
    )
}

/** A player to try things with: the first that is still in the game, or a new one. */
export const somePlayer = (context: StepContext, index = 0): Effect.Effect<Client, Stop | import("../../net/udp.js").UdpError> =>
  Effect.suspend(() => {
    const active = context.session.activePlayers.filter((client) => client.name !== awkwardName)
    return active[index] ? Effect.succeed(active[index]!) : context.session.joinPlayer(`checker ${context.session.clients.length + 1}`)
  })

/** What may answer a message the server cannot take: NO (or ERROR in 2021), or nothing. */
const refusalForm = (context: StepContext, arrivals: ReadonlyArray<Arrival>, sent: string, label: string) => {
  const dialect = context.session.dialect
  for (const arrival of arrivals) {
    const word = wordOf(arrival)
    if (word === "DISPLAY" || word === "GOLD") continue
    const allowed = dialect === "cs50-2021" ? ["ERROR"] : dialect === "spec" ? ["NO"] : ["NO", "ERROR"]
    if (!allowed.includes(word)) {
      context.fail({
        what: `${label} was answered with ${word}, not ${allowed.join(" or ")}${dialect === "cs50-2021" ? " (the 2021 dialect)" : ""}`,
        sent,
        got: escaped(arrival.text),
        spec: Spec.no
      })
    }
  }
}

const unknownKeys: Step = {
  name: "unknown-keys",
  check: "unknown-keys",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const player = yield* somePlayer(context)
      for (const key of ["z", "0", "!"]) {
        const before = player.report.position
        player.probe.skipAll()
        yield* player.probe.send(`KEY ${key}`)
        const arrivals = yield* player.probe.gather(Math.min(400, context.session.answerMs))
        const after = player.report.position
        if (before && after && (before.row !== after.row || before.col !== after.col)) {
          context.fail({ what: `the unknown key '${key}' moved the player`, sent: escaped(`KEY ${key}`), got: listed(arrivals), spec: Spec.moveKeys })
        }
        if (player.report.ending) {
          return yield* stop({ what: `the unknown key '${key}' ended the player's game`, sent: escaped(`KEY ${key}`), got: listed(arrivals), spec: Spec.no })
        }
        refusalForm(context, arrivals, escaped(`KEY ${key}`), `the unknown key '${key}'`)
      }
      const spectator = yield* context.session.watch()
      spectator.probe.skipAll()
      yield* spectator.probe.send("KEY h")
      const answered = yield* spectator.probe.gather(Math.min(400, context.session.answerMs))
      if (spectator.report.ending) {
        context.fail({ what: "a move key from the spectator ended its session", sent: escaped("KEY h"), got: listed(answered), spec: Spec.spectatorQuitKey })
        context.session.spectator = undefined
      }
      refusalForm(context, answered, escaped("KEY h"), "a move key from the spectator")
      // Still there? The system tells at the next datagram sent, if the port closed.
      yield* player.probe.send("KEY z")
      yield* player.probe.gather(Math.min(250, context.session.answerMs), () => player.probe.portClosed())
      if (player.probe.portClosed()) {
        return yield* stop({ what: "the server died: its port closed after a move key from the spectator", sent: escaped("KEY h"), got: "ICMP port unreachable at the next datagram", spec: Spec.spectatorQuitKey })
      }
    })
}

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

const badMessages: Step = {
  name: "bad-messages",
  check: "bad-messages",
  needs: ["join-spectator", "join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const { session } = context
      const player = yield* somePlayer(context)
      const stranger = yield* session.open("player")
      let previous: string | undefined
      let previousSent = ""
      for (const [what, datagram] of garbage) {
        for (const from of [player, stranger]) {
          from.probe.skipAll()
          yield* from.probe.send(datagram)
          const arrivals = yield* from.probe.gather(Math.min(250, session.answerMs), () => from.probe.portClosed())
          const sender = from === player ? "a player" : "a client that never joined"
          // The port closed: the server died of something sent before this (the system says so at the next send).
          if (from.probe.portClosed()) {
            return yield* stop({
              what: `the server died: its port closed${previous ? ` after ${previous}` : ""}`,
              sent: previous === undefined ? from.probe.lastSent() : previousSent,
              got: "ICMP port unreachable at the next datagram",
              spec: Spec.reactToMessages
            })
          }
          previous = `${what} from ${sender}`
          previousSent = from.probe.lastSent()
          refusalForm(context, arrivals, from.probe.lastSent(), `${what} from ${sender}`)
          if (from === player && player.report.ending) {
            return yield* stop({ what: `${what} ended the player's game`, sent: from.probe.lastSent(), got: listed(arrivals), spec: Spec.no })
          }
        }
      }
      // Still alive: a new spectator is let in as ever.
      const alive = yield* session.open("spectator")
      yield* alive.probe.send("SPECTATE")
      const welcomed = yield* alive.probe.gather(session.answerMs, () => alive.report.view !== undefined)
      if (alive.report.view === undefined) {
        return yield* stop({ what: "after these datagrams the server no longer answers", sent: escaped("SPECTATE"), got: listed(welcomed), spec: Spec.reactToMessages })
      }
      // It took the old spectator's place; the checks go on with it.
      if (session.spectator) session.spectator.left = true
      session.spectator = alive
    })
}

export const joinSteps: ReadonlyArray<Step> = [joinSpectator, joinPlayer, namesJoin, unknownKeys]

/** Last before the game is played out: a server may not survive it. */
export const garbageStep: Step = badMessages

export type { Failure }
