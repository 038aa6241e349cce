// How many columns and rows of the terminal's font fit its box (xterm.js's fit addon, in a few lines): a probe
// in the same font (class `shell-terminal-probe`, whose font matches `terminalFont`) gives a cell's size.

/** The font the terminal draws with; files.css gives the probe the same. */
export const terminalFont = {
  family: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
  size: 14,
  // Above 1, so underscores at the bottom of a cell are not cut off by the next row.
  lineHeight: 1.2,
}

/** Columns and rows of `terminalFont` that fit in `box` (its content area, less the scroll bar's room). */
export function fitTerminal(box: HTMLElement): { cols: number; rows: number } {
  const probe = document.createElement('span')
  probe.className = 'shell-terminal-probe'
  probe.textContent = 'W'.repeat(50)
  box.appendChild(probe)
  const cell = probe.getBoundingClientRect()
  probe.remove()
  const width = cell.width / 50 || 8.4
  const height = Math.ceil(cell.height * terminalFont.lineHeight) || 20
  return {
    cols: Math.max(20, Math.min(400, Math.floor((box.clientWidth - 20) / width))),
    rows: Math.max(8, Math.min(200, Math.floor(box.clientHeight / height))),
  }
}
