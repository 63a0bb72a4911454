import type { Notice } from "../core/state.js"
import { quitText } from "./dialect.js"
import type { ServerMessage } from "./messages.js"

/**
 * The notices that carry all they say: not a DISPLAY, whose grid is the viewer's view (each
 * caller has it in its own form: the server's patched buffers, a replay's view of a state),
 * nor GAMEOVER, whose summary each caller has (`gameOverMessage` words it per dialect).
 */
export type PlainNotice = Exclude<Notice, { readonly _tag: "Display" | "GameOver" }>

/** A core notice as the server says it: the one place where one becomes a message (server and terminal replay). */
export const noticeMessage = (notice: PlainNotice): ServerMessage =>
  notice._tag === "Quit" ? { _tag: "Quit", reason: quitText[notice.reason] } : notice
