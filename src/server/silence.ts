import type { ClientId } from "../core/state.js"

/**
 * Which players have been silent too long. The socket's callback only marks who was
 * heard (a set insertion per datagram, no clock read); every `step` the host asks who has
 * not been heard for `limit` milliseconds, counted in steps.
 */
export interface SilenceWatch {
  readonly heard: (id: ClientId) => void
  /** A step has passed: of `playing`, those silent for the limit or longer. */
  readonly step: (playing: Iterable<ClientId>) => ReadonlyArray<ClientId>
}

/** How often the host looks: a tenth of the limit, at most every second. */
export const silenceStep = (limit: number): number => Math.max(1, Math.min(1000, Math.floor(limit / 10)))

export const makeSilenceWatch = (limit: number): SilenceWatch => {
  const step = silenceStep(limit)
  let heard = new Set<ClientId>()
  /** Milliseconds each player has gone unheard, counted in steps. */
  const silentFor = new Map<ClientId, number>()
  return {
    heard: (id) => void heard.add(id),
    step: (playing) => {
      const silent: Array<ClientId> = []
      const still = new Map<ClientId, number>()
      for (const id of playing) {
        const unheard = heard.has(id) ? 0 : (silentFor.get(id) ?? 0) + step
        if (unheard >= limit) silent.push(id)
        else still.set(id, unheard)
      }
      silentFor.clear()
      for (const [id, unheard] of still) silentFor.set(id, unheard)
      heard = new Set()
      return silent
    }
  }
}
