// The app page's Content-Security-Policy: scripts and connections from the panel's own origin only, no inline
// script, no plugins, no framing. Inline styles are allowed: the terminal (xterm.js) and React's `style` props set
// them, and they cannot run code. Images may be `data:` URLs (a brand's logo is stored as one).

export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers of every answer of the app (its page and assets). */
export const appSecurityHeaders = {
  'content-security-policy': contentSecurityPolicy,
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
} as const
