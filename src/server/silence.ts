import type { ClientId } from "../core/state.js"

/**
 * A game's one idle clock: which players have been silent too long, and whether the game
 * has had no one in it that long. The socket's callback only marks who was heard (a set
 * insertion per datagram, no clock read); every `step` the game asks, counted in steps of
 * the same clock, who has not been heard for `limit` milliseconds, and whether no one
 * (player or spectator) has been in it for as long.
 */
export interface SilenceWatch {
  readonly heard: (id: ClientId) => void
  /**
   * A step has passed, with `playing` in the game (and a spectator, if `watched`): of
   * `playing`, those silent for the limit or longer; and whether the game has been empty
   * for the limit or longer.
   */
  readonly step: (playing: Iterable<ClientId>, watched: boolean) => { readonly silent: ReadonlyArray<ClientId>; readonly deserted: boolean }
}

/** How often the host looks: a tenth of the limit, at most every second. */
export const silenceStep = (limit: number): number => Math.max(1, Math.min(1000, Math.floor(limit / 10)))

export const makeSilenceWatch = (limit: number): SilenceWatch => {
  const step = silenceStep(limit)
  let heard = new Set<ClientId>()
  /** Milliseconds each player has gone unheard, counted in steps. */
  const silentFor = new Map<ClientId, number>()
  /** Milliseconds the game has had no one in it, counted in steps. */
  let emptyFor = 0
  return {
    heard: (id) => void heard.add(id),
    step: (playing, watched) => {
      const silent: Array<ClientId> = []
      const still = new Map<ClientId, number>()
      let anyone = watched
      for (const id of playing) {
        anyone = true
        const unheard = heard.has(id) ? 0 : (silentFor.get(id) ?? 0) + step
        if (unheard >= limit) silent.push(id)
        else still.set(id, unheard)
      }
      silentFor.clear()
      for (const [id, unheard] of still) silentFor.set(id, unheard)
      heard = new Set()
      emptyFor = anyone ? 0 : emptyFor + step
      return { silent, deserted: emptyFor >= limit }
    }
  }
}
