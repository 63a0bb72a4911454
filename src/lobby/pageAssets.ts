import { type PageAssets, pageFromSource } from "../web/pageBuild.js"
import { lobbyPage } from "./pageBuild.js"

/** The lobby's page, made as the game's is (see `web/pageAssets.ts`): from source when first asked for, or put here by the build. */
let page: PageAssets | undefined

export const lobbyAssets = (): PageAssets => page ??= pageFromSource(lobbyPage)
