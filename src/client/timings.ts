/** How patient the client is, in milliseconds. */
export interface Timings {
  /** How long the server has to answer PLAY or SPECTATE at all. */
  readonly answerTimeout: number
  /**
   * PLAY or SPECTATE goes out again after this long with nothing at all back, then after
   * twice as long each time. Longer than a slow round trip (0.7 s at 350 ms each way): most
   * CS50 servers make a new player for every PLAY, so a PLAY sent while the answer to the
   * first is on its way leaves a ghost.
   */
  readonly joinRetry: number
  /** The longest wait between two PLAYs. */
  readonly maxJoinRetry: number
  /** A refusal this long (or two round trips) after the user's Ctrl-L is taken for its answer, and hidden. */
  readonly askAnswer: number
  /** A typed key the server must answer with nothing at all heard after it this long: the server is not answering. */
  readonly silence: number
  /** A player's Q goes out again this often (or every two round trips) until QUIT comes. */
  readonly quitRetry: number
  /** How long to wait for the server's QUIT after Q. */
  readonly quitTimeout: number
}

export const defaultTimings: Timings = {
  answerTimeout: 5000,
  joinRetry: 1000,
  maxJoinRetry: 4000,
  askAnswer: 500,
  silence: 3000,
  quitRetry: 400,
  quitTimeout: 2000
}
