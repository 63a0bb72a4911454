import { gamePage, type PageRecipe, pageRecipe } from "../web/pageBuild.js"

const own = pageRecipe(new URL("./page/main.ts", import.meta.url), [new URL("./page/style.css", import.meta.url)])

/** The lobby's page (`page/`): its script, and the game page's style before its own (one palette). */
export const lobbyPage: PageRecipe = { ...own, styles: [...gamePage.styles, ...own.styles] }
