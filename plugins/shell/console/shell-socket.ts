// The shell's WebSocket protocol (docs/shell.md): a session asked for with `POST /sites/{id}/shell-sessions`
// gives a single-use URL and token (60 s); frames are JSON text both ways: `stdin` and `resize` from us,
// `output`, `error` and a last `exit` from the panel, which then closes the socket.

import { unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type NewShellSession = Schemas['NewShellSession']

/** How a shell ended, from its `exit` frame or the socket's close. */
export interface ShellEnd {
  /** `exited`, `closed`, `idle`, `site_unavailable`, `access_revoked`, `input_overflow`, `shutdown`, `failed`, or
   * `connection_lost` when the socket closed without an `exit` frame (refused, or the network broke). */
  readonly reason: string
  readonly code: number | null
}

/** What the page hears from a shell. */
export interface ShellHandlers {
  readonly onOpen: () => void
  readonly onOutput: (data: string) => void
  readonly onNotice: (message: string) => void
  readonly onEnd: (end: ShellEnd) => void
}

/** A live shell: send keys and sizes, or close it. */
export interface ShellConnection {
  readonly session: NewShellSession
  sendInput(data: string): void
  resize(cols: number, rows: number): void
  close(): void
}

/** Asks for a shell session of the site and opens its socket at the terminal's size. */
export async function openShell(
  siteId: string,
  size: { cols: number; rows: number },
  handlers: ShellHandlers,
): Promise<ShellConnection> {
  const session = await unwrap(
    api.POST('/api/v1/sites/{id}/shell-sessions', { params: { path: { id: siteId } } }),
  )
  const url = new URL(session.url)
  url.searchParams.set('token', session.token)
  url.searchParams.set('cols', String(size.cols))
  url.searchParams.set('rows', String(size.rows))
  const socket = new WebSocket(url)
  let ended: ShellEnd | null = null
  let closing = false
  const send = (frame: Record<string, unknown>) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame))
  }
  socket.addEventListener('open', () => handlers.onOpen())
  socket.addEventListener('message', (event) => {
    if (typeof event.data !== 'string') return
    let frame: { type?: string; data?: unknown; message?: unknown; code?: unknown; reason?: unknown }
    try {
      frame = JSON.parse(event.data)
    } catch {
      return
    }
    if (frame.type === 'output' && typeof frame.data === 'string') handlers.onOutput(frame.data)
    else if (frame.type === 'error' && typeof frame.message === 'string') handlers.onNotice(frame.message)
    else if (frame.type === 'exit')
      ended = {
        reason: typeof frame.reason === 'string' ? frame.reason : 'exited',
        code: typeof frame.code === 'number' ? frame.code : null,
      }
  })
  socket.addEventListener('close', () =>
    handlers.onEnd(ended ?? { reason: closing ? 'closed' : 'connection_lost', code: null }),
  )
  return {
    session,
    sendInput: (data) => send({ type: 'stdin', data }),
    resize: (cols, rows) => send({ type: 'resize', cols, rows }),
    close: () => {
      closing = true
      socket.close(1000)
    },
  }
}

/** An ended shell in a sentence. */
export function describeEnd(end: ShellEnd): string {
  switch (end.reason) {
    case 'exited':
      return `The shell exited${end.code === null ? '' : ` with code ${end.code}`}.`
    case 'closed':
      return 'You disconnected the shell.'
    case 'idle':
      return 'The shell was closed after a long time without input.'
    case 'site_unavailable':
      return 'The site was suspended or removed: its shell ended with it.'
    case 'access_revoked':
      return 'Your access to this site’s shell was withdrawn.'
    case 'input_overflow':
      return 'Too much input arrived at once (a very large paste): the shell was closed.'
    case 'shutdown':
      return 'The control panel restarted: the shell was closed.'
    case 'failed':
      return 'The shell failed on the site’s server.'
    default:
      return 'The connection to the shell was refused or lost.'
  }
}
