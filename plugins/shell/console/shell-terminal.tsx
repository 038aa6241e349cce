// An interactive shell in the site, drawn by xterm.js: connected when the page opens, with its state, a
// visible way to leave it by keyboard (Escape, then Tab), and a notice with "Reconnect" when it ends.

import { Terminal } from '@xterm/xterm'
import { useCallback, useEffect, useId, useRef, useState } from 'react'
import { ShellProblem } from './shell-problem.tsx'
import { describeEnd, openShell, type ShellConnection, type ShellEnd } from './shell-socket.ts'
import { fitTerminal, terminalFont } from './terminal-size.ts'

type State = 'connecting' | 'open' | 'ended' | 'refused'

/** How long after Escape a Tab leaves the terminal instead of reaching the shell. */
const escapeWindowMs = 1500

export function ShellTerminal({ siteId }: { siteId: string }) {
  const noteId = useId()
  const box = useRef<HTMLDivElement>(null)
  const terminal = useRef<Terminal | null>(null)
  const connection = useRef<ShellConnection | null>(null)
  const [state, setState] = useState<State>('connecting')
  const [end, setEnd] = useState<ShellEnd | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  const [screenReader, setScreenReader] = useState(false)

  const connect = useCallback(
    async (focus: boolean) => {
      const term = terminal.current
      const element = box.current
      if (!term || !element) return
      connection.current?.close()
      connection.current = null
      setState('connecting')
      setEnd(null)
      setFailure(null)
      try {
        const shell = await openShell(
          siteId,
          { cols: term.cols, rows: term.rows },
          {
            onOpen: () => {
              setState('open')
              if (focus) term.focus()
            },
            onOutput: (data) => term.write(data),
            onNotice: (message) => term.write(`\r\n\x1b[33m[${message}]\x1b[0m\r\n`),
            onEnd: (ended) => {
              // Only the current connection's end counts (a reconnect closes the previous one).
              if (connection.current !== shell) return
              connection.current = null
              setEnd(ended)
              setState('ended')
              term.write(`\r\n\x1b[33m[${describeEnd(ended)}]\x1b[0m\r\n`)
            },
          },
        )
        connection.current = shell
      } catch (error) {
        setFailure(error)
        setState('refused')
      }
    },
    [siteId],
  )

  useEffect(() => {
    const element = box.current
    if (!element) return
    const size = fitTerminal(element)
    const term = new Terminal({
      ...size,
      fontFamily: terminalFont.family,
      fontSize: terminalFont.size,
      lineHeight: terminalFont.lineHeight,
      cursorBlink: true,
      scrollback: 5000,
    })
    term.open(element)
    // The note on leaving the terminal is read out when its input takes the focus.
    term.textarea?.setAttribute('aria-describedby', noteId)
    terminal.current = term
    let escapeAt = 0
    // xterm takes every key, Tab included; Escape then Tab gives Tab back to the browser, so a keyboard user can
    // leave the terminal (the Escape itself still reaches the shell, as vi and less expect).
    term.attachCustomKeyEventHandler((event) => {
      if (event.type !== 'keydown') return true
      if (event.key === 'Tab' && Date.now() - escapeAt < escapeWindowMs) {
        escapeAt = 0
        return false
      }
      escapeAt = event.key === 'Escape' ? Date.now() : 0
      return true
    })
    const typed = term.onData((data) => connection.current?.sendInput(data))
    const resized = term.onResize(({ cols, rows }) => connection.current?.resize(cols, rows))
    let timer: ReturnType<typeof setTimeout> | undefined
    const refit = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        const next = fitTerminal(element)
        if (next.cols !== term.cols || next.rows !== term.rows) term.resize(next.cols, next.rows)
      }, 150)
    }
    window.addEventListener('resize', refit)
    void connect(false)
    return () => {
      window.removeEventListener('resize', refit)
      clearTimeout(timer)
      typed.dispose()
      resized.dispose()
      const open = connection.current
      connection.current = null
      open?.close()
      term.dispose()
      terminal.current = null
    }
  }, [connect, noteId])

  useEffect(() => {
    if (terminal.current) terminal.current.options.screenReaderMode = screenReader
  }, [screenReader])

  const status =
    state === 'connecting'
      ? 'Connecting…'
      : state === 'open'
        ? 'Connected: bash in /htdocs, as the site’s user.'
        : state === 'refused'
          ? 'Not connected.'
          : end
            ? describeEnd(end)
            : 'Disconnected.'

  return (
    <div className="shell-terminal">
      <p id={noteId} className="hint">
        The terminal takes every key, Tab included. To move out of it with the keyboard, press Escape, then
        Tab.
      </p>
      <div className="shell-terminal-bar">
        <p className="shell-terminal-status" role="status" data-state={state}>
          {status}
        </p>
        {state === 'open' ? (
          <button type="button" className="button secondary" onClick={() => connection.current?.close()}>
            Disconnect
          </button>
        ) : state !== 'connecting' ? (
          <button type="button" className="button" onClick={() => void connect(true)}>
            Reconnect
          </button>
        ) : null}
        <label className="shell-terminal-option">
          <input
            type="checkbox"
            checked={screenReader}
            onChange={(event) => setScreenReader(event.currentTarget.checked)}
          />{' '}
          Screen reader mode
        </label>
      </div>
      {failure ? <ShellProblem error={failure} /> : null}
      {state === 'ended' && end ? (
        <div className="notice notice-info" role="alert">
          <p>{describeEnd(end)} Press “Reconnect” for a new shell.</p>
        </div>
      ) : null}
      {/* Kept mounted (the terminal lives in it) but hidden while there is no shell to show. */}
      <div className="terminal shell-terminal-screen" hidden={state === 'refused'}>
        <div ref={box} className="shell-terminal-box" />
      </div>
    </div>
  )
}
