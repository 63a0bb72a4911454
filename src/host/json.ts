import type { ArchivedGame } from "../archive/model.js"
import { apiPaths, lobbyPaths, pathTo } from "../lobby/paths.js"
import type { GamesJson, LiveGameJson, PastGameJson } from "../lobby/schemas.js"
import { hasFreePlace, type HostSettings, type RunningGame } from "./host.js"

/** How the lobby tells of the games: the answers of its contract (`lobby/schemas.ts`), made from the host's own nouns. */

export const liveGameJson = (game: RunningGame, settings: HostSettings): LiveGameJson => {
  const state = game.live.state()
  return {
    id: game.id,
    live: true,
    map: game.choice.map.name,
    port: game.port,
    variant: game.choice.variant,
    dialect: game.choice.dialect,
    started: new Date(game.startedMs).toISOString(),
    players: state.players.map(({ active, letter, name, purse }) => ({ letter, name, purse, playing: active })),
    spectator: state.spectator !== undefined,
    nuggetsLeft: state.goldRemaining,
    watchers: game.web.watchers(),
    freePlaces: hasFreePlace(game.live) ? state.rules.maxPlayers - state.players.length : 0,
    over: state.over,
    join: `nuggets join ${settings.joinAddress} ${game.port} NAME`,
    page: pathTo(lobbyPaths.game, { id: game.id })
  }
}

/** The games a lobby shows, what a new game may be played on, and whether the host is closing: `GET /api/games`, and the lobby's feed. */
export const gamesJson = (settings: HostSettings, games: ReadonlyArray<LiveGameJson>, closing: string | undefined): GamesJson => ({
  games,
  maps: settings.maps.map((each) => each.name),
  maxGames: settings.maxGames,
  ...(closing === undefined ? {} : { closing })
})

/** A past game as scripts and the page see it: where the host keeps its file is no one's business. */
export const pastGameJson = (game: ArchivedGame): PastGameJson => ({
  id: game.id,
  live: false,
  map: game.map,
  seed: game.seed,
  variant: game.variant,
  dialect: game.dialect,
  program: game.program,
  started: game.started,
  durationMs: game.durationMs ?? null,
  moves: game.moves ?? null,
  outcome: game.outcome,
  failure: game.failure ?? null,
  note: game.note ?? null,
  standings: game.standings,
  winners: game.winners,
  nuggetsLeft: game.nuggetsLeft ?? null,
  replay: pathTo(lobbyPaths.replay, { id: game.id }),
  recording: pathTo(apiPaths.recording, { id: game.id })
})
