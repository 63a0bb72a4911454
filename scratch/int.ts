import { Effect, Layer, Context, Fiber, Option, Duration } from "effect"
import { hostLayers } from "../src/cli/hostLayers.js"
import { HostWeb } from "../src/host/web.js"
import { Host } from "../src/host/host.js"
import { Admission } from "../src/host/admission.js"
import { drainThenStop } from "../src/host/drain.js"
import { builtInMaps } from "../src/host/maps.js"
import { nodeUdpLayer } from "../src/net/nodeUdp.js"
const settings: any = { maps: builtInMaps(), udpHost: "127.0.0.1", ports: undefined, open: 1, maxGames: 10, idleTimeout: Duration.minutes(10), variant: "classic", dialect: "2019", joinAddress: "127.0.0.1" }
const prog = Effect.scoped(Effect.gen(function*() {
  const ctx = yield* Layer.build(hostLayers({ host: "127.0.0.1", port: 0 }, settings, { _tag: "Alone", dataDir: "/tmp/intd" }).pipe(Layer.provide(nodeUdpLayer)))
  const web = Context.get(ctx, HostWeb)
  console.log("url", web.url)
  const check = Effect.promise(async () => {
    try { const r = await fetch(web.url + "readyz"); console.log("in handler", r.status) } catch (e) { console.log("in handler fetch failed", String(e)) }
  })
  yield* Effect.never.pipe(Effect.onInterrupt(() => Effect.zipRight(Effect.fork(Effect.delay(check, 300)), drainThenStop(Context.get(ctx, Host), Context.get(ctx, Admission), Duration.seconds(3), Effect.never))))
}))
const fiber = Effect.runFork(prog)
setTimeout(() => Effect.runFork(Fiber.interrupt(fiber)), 1500)
