/** The page's elements, by id: the markup is `pageRoute.ts`'s, so a missing one is a bug. */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id)
  if (element === null) throw new Error(`the page has no #${id}`)
  return element as T
}

/** A table row of cells, each with its class and text (text only: nothing from the server becomes markup). */
export const row = (cells: ReadonlyArray<readonly [className: string, text: string]>, className = ""): HTMLTableRowElement => {
  const tr = document.createElement("tr")
  tr.className = className
  for (const [name, text] of cells) {
    const td = document.createElement("td")
    td.className = name
    td.textContent = text
    td.title = text
    tr.appendChild(td)
  }
  return tr
}
