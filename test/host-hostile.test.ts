/**
 * The hostile client's rows (`web/hostileRows.ts`) against `nuggets host`: a game's page,
 * feed and socket under the lobby (`/games/ID/`), and the lobby's own routes, as a real
 * process. After each attack the host lives, the game's UDP player and a fresh page play
 * on, and the memory comes back.
 */
import { hostWeb } from "./web/hostile.js"
import { hostileRows } from "./web/hostileRows.js"

hostileRows("the host's web side against one hostile client", hostWeb)
