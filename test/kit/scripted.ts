import { Effect } from "effect"
import { openScriptServer, type Script } from "../../src/kit/check-client/script-server.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"

/**
 * A server played by a script on a loopback socket (the kit's scripted server, on Node's
 * sockets): each datagram is handed to the script with a way to answer its sender.
 * Deliberately broken servers for the kit's tests are a few lines each.
 */
export const scriptedServer = (script: Script) => openScriptServer(script).pipe(Effect.provide(nodeUdpLayer))
