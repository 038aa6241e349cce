// A brand's colours applied to the page as CSS custom properties, with text colours chosen for contrast so that
// any colour a brand picks stays readable (WCAG AA: 4.5:1 for text).

/** The brand as the public branding endpoint gives it. */
export interface Branding {
  readonly brandId: string
  readonly name: string
  readonly theme: {
    readonly logo: string | null
    readonly primaryColor: string
    readonly accentColor: string
  }
}

function channels(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.replace('#', ''), 16)
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255]
}

/** Relative luminance (WCAG 2). */
function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((channel) => {
    const c = channel / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** Contrast ratio of two colours. */
export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

/** White or near-black, whichever reads better on `background`. */
export function textOn(background: string): string {
  return contrast(background, '#ffffff') >= contrast(background, '#111827') ? '#ffffff' : '#111827'
}

/**
 * A shade of `colour` that reads as text on white (links, headings): darkened step by step until it reaches 4.5:1.
 */
export function readableOnWhite(colour: string): string {
  let [r, g, b] = channels(colour)
  for (let step = 0; step < 20 && contrast(toHex(r, g, b), '#ffffff') < 4.5; step++) {
    r = Math.round(r * 0.85)
    g = Math.round(g * 0.85)
    b = Math.round(b * 0.85)
  }
  return toHex(r, g, b)
}

function toHex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`
}

/** Applies a brand to the document: its colours, and its name in the tab's title. */
export function applyBranding(branding: Branding): void {
  const root = document.documentElement.style
  const { primaryColor, accentColor } = branding.theme
  root.setProperty('--brand-primary', primaryColor)
  root.setProperty('--brand-on-primary', textOn(primaryColor))
  root.setProperty('--brand-primary-text', readableOnWhite(primaryColor))
  root.setProperty('--brand-accent', accentColor)
  root.setProperty('--brand-on-accent', textOn(accentColor))
  // The focus ring must show on white (WCAG 2.1 1.4.11, 3:1): a light accent is darkened for it.
  root.setProperty('--brand-focus', readableOnWhite(accentColor))
  document.documentElement.dataset.brand = branding.brandId
  const previous = document.documentElement.dataset.brandName ?? 'Control panel'
  document.documentElement.dataset.brandName = branding.name
  // A page titled before the brand was known ("Sign in · Control panel") gets the brand's name.
  if (document.title.endsWith(` · ${previous}`))
    document.title = `${document.title.slice(0, -previous.length)}${branding.name}`
}
