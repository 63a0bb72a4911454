/**
 * One client against `nuggets serve --web`, as an attacker would try it, over real sockets
 * against a real server process. After each attack: the process lives, a UDP player
 * still gets its DISPLAY, a fresh page still watches and plays, and the resident memory
 * comes back within 150 MB of where it started. The rows are `web/hostileRows.ts`, run
 * against a game of `nuggets host` too (host-hostile.test.ts).
 */
import { serveWeb } from "./web/hostile.js"
import { hostileRows } from "./web/hostileRows.js"

hostileRows("the web side against one hostile client", serveWeb)
