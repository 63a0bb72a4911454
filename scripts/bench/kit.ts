/**
 * The kit's speed: how long `check server` takes to a verdict against our own server (the
 * whole run, with --map, and the checker's own CPU; at HOST PORT, and started by the checker
 * with -- COMMAND, afresh for the checks that need it), against one whose game never ends
 * (our server behind a relay that drops its game over: the 30 s target), and against servers
 * that never answer, hang after the spectator joins, or flood garbage (a verdict, never a
 * hang: each within its deadline); and `check client` against our own `join`. Figures only;
 * the tests assert the verdicts.
 */
import { Effect, Either, Exit, Logger, LogLevel, Scope } from "effect"
import * as dgram from "node:dgram"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parseMap } from "../../src/core/map.js"
import { checkClient } from "../../src/kit/check-client/check-client.js"
import { type CheckServerOptions, checkServer } from "../../src/kit/check-server/check-server.js"
import { counts } from "../../src/kit/conformance/report.js"
import { makeRelay } from "../../src/kit/proxy/relay.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"
import { root } from "./process.js"
import { type Nuggets, startRealServer } from "./server.js"
import { round } from "./stats.js"

/** A UDP server on loopback that answers each datagram as `answer` says. */
const scriptedServer = async (answer: (text: string) => ReadonlyArray<string | Uint8Array>) => {
  const socket = dgram.createSocket("udp4")
  socket.on("message", (bytes, from) => {
    for (const each of answer(bytes.toString("latin1"))) socket.send(each, from.port, from.address)
  })
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve))
  return { port: socket.address().port, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) }
}

/** The CLI's defaults: 10 s a check, 2 s an answer, 300 s in all. */
const defaults = { dialect: undefined, map: undefined, only: undefined, checkMs: 10_000, totalMs: 300_000, answerMs: 2000 }

const timed = async ({ port, ...options }: Partial<CheckServerOptions> & { readonly port: number }) => {
  const cpu = process.cpuUsage()
  const started = performance.now()
  const report = await Effect.runPromise(checkServer({ ...defaults, target: { _tag: "Address", host: "127.0.0.1", port }, ...options }).pipe(Effect.provide(nodeUdpLayer), Logger.withMinimumLogLevel(LogLevel.None)))
  const used = process.cpuUsage(cpu)
  const checkerCpuMs = round((used.user + used.system) / 1000, 0)
  return { report, ms: round(performance.now() - started, 0), checkerCpuMs, ...counts(report) }
}

/** Our server behind a relay that drops every game over: a game that never ends, as far as clients can tell. */
const neverEnding = async (port: number) => {
  const scope = Effect.runSync(Scope.make())
  const relay = await Effect.runPromise(
    makeRelay({ server: { host: "127.0.0.1", port }, rules: [{ dir: "down", match: /^GAMEOVER/, action: { kind: "drop" } }] }).pipe(
      Effect.provide(nodeUdpLayer),
      Scope.extend(scope)
    )
  )
  return { port: relay.port, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

export interface KitFigures {
  readonly checkServer: Record<string, { readonly ms: number; readonly checkerCpuMs: number; readonly passed: number; readonly failed: number; readonly target: string }>
  /** The slowest checks of the run against our own server, ms each. */
  readonly slowestChecks: Record<string, number>
  readonly checkClient: { readonly ms: number; readonly passed: number; readonly failed: number; readonly target: string } | undefined
}

export const benchKit = async (nuggets: Nuggets, withClient: boolean): Promise<KitFigures> => {
  const mapFile = join(root, "maps", "main.txt")
  const map = Either.getOrThrow(parseMap(readFileSync(mapFile, "utf8")))
  const server = await startRealServer(nuggets, mapFile)
  const ours = await timed({ port: server.port, map: { file: mapFile, map } }).finally(() => server.stop())
  const serve = "binary" in nuggets ? [nuggets.binary] : "bundle" in nuggets ? [process.execPath, nuggets.bundle] : [process.execPath, "--import", "tsx", "src/main.ts"]
  const started = await timed({ port: 0, target: { _tag: "Command", command: [...serve, "serve", "{map}", "{seed}", "--host", "127.0.0.1"], map: mapFile, seed: 1 }, map: { file: mapFile, map } })
  const endless = await startRealServer(nuggets, mapFile)
  const relay = await neverEnding(endless.port)
  const neverEnds = await timed({ port: relay.port, map: { file: mapFile, map } }).finally(() => Promise.all([relay.close(), endless.stop()]))
  const silent = await scriptedServer(() => [])
  const quiet = await timed({ port: silent.port }).finally(() => silent.close())
  const hanging = await scriptedServer((text) => (text === "SPECTATE" ? ["GRID 1 3", "GOLD 0 0 250", "DISPLAY\n.*.\n"] : []))
  const hung = await timed({ port: hanging.port, totalMs: 1500 }).finally(() => hanging.close())
  const flooding = await scriptedServer(() => Array.from({ length: 200 }, (_, i) => Uint8Array.from([0xde, 0xad, i])))
  const flooded = await timed({ port: flooding.port, checkMs: 1500, totalMs: 8000 }).finally(() => flooding.close())
  const row = (figures: Awaited<ReturnType<typeof timed>>, target: string) => ({
    ms: figures.ms,
    checkerCpuMs: figures.checkerCpuMs,
    passed: figures.passed,
    failed: figures.failed,
    target
  })
  const slowest = [...ours.report.checks].sort((a, b) => b.ms - a.ms).slice(0, 5)
  let client: KitFigures["checkClient"]
  if (withClient) {
    const command = "binary" in nuggets ? [nuggets.binary, "join"] : "bundle" in nuggets ? [process.execPath, nuggets.bundle, "join"] : [process.execPath, "--import", "tsx", "src/main.ts", "join"]
    const started = performance.now()
    const report = await Effect.runPromise(
      checkClient({ command, dialect: "2019", answerMs: 3000, only: undefined, checkMs: 60_000, totalMs: 300_000 }).pipe(
        Effect.provide(nodeUdpLayer),
        Logger.withMinimumLogLevel(LogLevel.None)
      )
    )
    client = { ms: round(performance.now() - started, 0), ...counts(report), target: "< 60,000; 14 passed" }
  }
  return {
    checkServer: {
      "our server, with --map": row(ours, "22 passed; under 30,000 ms"),
      "our server, -- COMMAND, with --map": row(started, "22 passed; under 30,000 ms"),
      "a server whose game never ends (its game over dropped), with --map": row(neverEnds, "under 30,000 ms"),
      "a server that never answers": row(quiet, "a verdict within an answer's wait (2,000 ms)"),
      "a server that hangs after SPECTATE, --deadline 1.5": row(hung, "≈ 1,500 ms"),
      "a server that floods garbage, --timeout 1.5 --deadline 8": row(flooded, "≤ 8,000 ms + one check's cut")
    },
    slowestChecks: Object.fromEntries(slowest.map((check) => [check.name, check.ms])),
    checkClient: client
  }
}
