// The node agent's work: ask the panel for commands (a long poll over the panel's own HTTPS, so the node needs no
// inbound port), carry each out on the node, answer it, and report traffic. Commands on one subject (a site, or ACME
// challenges) run one after another, so a command sent again after a dropped connection waits for the first and then
// finds it done.

import { randomBytes } from 'node:crypto'
import type { NodeCapabilities } from '../contract.ts'
import type { SiteDisk, TrafficReading } from '../runtime/site-runtime.ts'
import type { AgentSettings } from './agent-settings.ts'
import { answerRefusedCode, failedAnswer, fittingAnswer } from './answer-fit.ts'
import type { AgentCommand, AgentLeaving, AgentModule, AgentResult, AgentWork } from './protocol.ts'

/** Where the agent writes what happened: JSON lines, ids and codes only, never a payload (secrets, keys). */
export type AgentLog = (fields: Record<string, unknown>, message: string) => void

/** A refusal the agent cannot recover from (its token is refused): it stops, saying why. */
export class AgentRefused extends Error {}

/** The panel refused what the agent sent as it was (400, 413, 422): sending it again gets the same answer. */
class PanelRefused extends Error {}

/**
 * How long what the node can run (its nginx, PHP and WordPress versions) is told from memory before it is read
 * again. Reading it runs `nginx -v` and `php-fpm -v` (some 170 ms on a small machine): done before every poll, it
 * held back every command sent meanwhile, a shell's keystrokes included.
 */
const capabilitiesEveryMs = 60_000

/** The node as the agent drives it. */
export interface AgentNode {
  /** What the node can run (read once a minute: it runs `nginx -v` and `php-fpm -v`). */
  capabilities(): Promise<NodeCapabilities>
  /**
   * Runs the modules the panel names (loads those it does not run yet), before any command of the same answer runs;
   * resolves true when that changed what the node offers.
   */
  loadModules(modules: readonly AgentModule[]): Promise<boolean>
  /**
   * Starts serving once the panel took the agent's token (a refused agent leaves nothing running): its masters and
   * what its services keep running. Failures are the node's to log; the agent goes on. `readinessChanged` is called
   * whenever the node's readiness changes later (its port freed): what it runs is read again for the next poll.
   */
  serve(readinessChanged: () => void): Promise<void>
  /** Carries out a command; resolves with what the operation resolved with. */
  run(command: AgentCommand, signal: AbortSignal): Promise<unknown>
  /** What each site served since the last call. */
  traffic(): Promise<readonly TrafficReading[]>
  /** What every site takes on disk now. */
  disk(): Promise<readonly SiteDisk[]>
}

/** The running agent: `stop()` ends the polling and waits for commands under way. */
export interface RunningAgent {
  /** Resolves once the panel answered the first poll (the agent is connected). */
  readonly connected: Promise<string>
  stop(): Promise<void>
  /** Resolves when the loop ended (after `stop()`, or on a refusal, which it rejects with). */
  readonly done: Promise<void>
}

/** Starts the agent's loop. */
export function startAgent(
  settings: AgentSettings,
  node: AgentNode,
  version: string,
  log: AgentLog,
): RunningAgent {
  const session = randomBytes(12).toString('base64url')
  const stopping = new AbortController()
  const bySubject = new Map<string, Promise<void>>()
  /** Commands received and not yet answered (or given up on): told to the panel with every poll. */
  const holding = new Set<string>()
  const running = new Set<Promise<void>>()
  let nodeId: string | null = null
  let serving = false
  let onConnected: (id: string) => void = () => {}
  const connected = new Promise<string>((resolve) => {
    onConnected = resolve
  })

  let known: { readonly capabilities: NodeCapabilities; readonly at: number } | null = null
  let reading: Promise<void> | null = null
  /** What the node can run: read at the first poll, then again in the background once a minute. */
  async function capabilities(): Promise<NodeCapabilities> {
    const read = async () => {
      const capabilities = await node.capabilities()
      known = { capabilities, at: Date.now() }
      return capabilities
    }
    if (!known) return read()
    if (Date.now() - known.at > capabilitiesEveryMs && !reading)
      reading = read()
        .then(
          () => {},
          (error: unknown) => log({ err: String(error) }, 'reading the node’s capabilities failed'),
        )
        .finally(() => {
          reading = null
        })
    return known.capabilities
  }

  async function call<T>(path: string, body: unknown, timeoutMs: number): Promise<T> {
    const response = await fetch(`${settings.panelUrl}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${settings.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]),
    })
    const text = await response.text()
    if (response.status === 401)
      throw new AgentRefused(`The panel refused the agent token (${text.slice(0, 200)})`)
    const said = `${path} answered ${response.status}: ${text.slice(0, 200)}`
    if (response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status))
      throw new PanelRefused(said)
    if (!response.ok) throw new Error(said)
    return JSON.parse(text) as T
  }

  /** Carries out one command; the outcome as the panel takes it. */
  async function carryOut(command: AgentCommand): Promise<AgentResult> {
    try {
      const result = await node.run(command, stopping.signal)
      return result === undefined ? { ok: true } : { ok: true, result }
    } catch (error) {
      const failure = error as Error & { code?: string; details?: Record<string, unknown> }
      // A NodeFailure (an unsafe spec) or a service's refusal cannot be helped by sending it again.
      const refusal = failure.name === 'NodeRefusal'
      const final = failure.name === 'NodeFailure' || refusal
      return {
        ok: false,
        error: {
          message: failure.message.slice(0, 4000),
          ...(typeof failure.code === 'string' && /^[a-z][a-z0-9_]*$/.test(failure.code)
            ? { code: failure.code }
            : {}),
          ...(refusal && failure.details ? { details: failure.details } : {}),
          final,
          ...(refusal ? { refusal } : {}),
        },
      }
    }
  }

  /** Runs `command` after its subject's earlier ones, then answers it (again after a dropped connection). */
  function schedule(command: AgentCommand): void {
    // Sent again while this run still has it (its poll was slow): it is under way already.
    if (holding.has(command.id)) return
    holding.add(command.id)
    const { subject } = command
    const previous = bySubject.get(subject) ?? Promise.resolve()
    const next = previous.then(async () => {
      const started = performance.now()
      let result = fittingAnswer(await carryOut(command), command.operation)
      log(
        {
          commandId: command.id,
          operation: command.operation,
          subject,
          ok: result.ok,
          ms: Math.round(performance.now() - started),
          ...(result.ok ? {} : { error: result.error?.message }),
        },
        `${command.operation} ${result.ok ? 'done' : 'failed'}`,
      )
      for (let attempt = 0; attempt < 5 && !stopping.signal.aborted; attempt++) {
        try {
          await call(`/agent/commands/${command.id}`, result, 15_000)
          return
        } catch (error) {
          if (error instanceof AgentRefused) throw error
          // Refused as it is: the command fails, saying why, rather than being sent to the agent again.
          if (error instanceof PanelRefused && result.error?.code !== answerRefusedCode) {
            log({ commandId: command.id, err: error.message }, 'answer refused by the panel')
            result = failedAnswer(
              answerRefusedCode,
              `The panel refused the node's answer to ${command.operation}: ${error.message}`,
            )
            continue
          }
          await Bun.sleep(500 * 2 ** attempt)
        }
      }
    })
    const settled = next.catch((error: unknown) =>
      log({ commandId: command.id, err: String(error) }, 'answer lost'),
    )
    bySubject.set(subject, settled)
    running.add(settled)
    void settled.finally(() => {
      holding.delete(command.id)
      running.delete(settled)
      if (bySubject.get(subject) === settled) bySubject.delete(subject)
    })
  }

  async function poll(): Promise<void> {
    let backoff = 500
    while (!stopping.signal.aborted) {
      try {
        const work = await call<AgentWork>(
          '/agent/work',
          {
            session,
            version,
            capabilities: await capabilities(),
            holding: [...holding],
            // The first poll answers at once: the agent is connected (and says so) without waiting for work.
            waitSeconds: nodeId === null ? 0 : 25,
          },
          40_000,
        )
        // The modules first: a command may call a service one of them offers. What the node offers then changed, and
        // the next poll says so.
        const offersChanged = await node.loadModules(work.modules)
        if (offersChanged) known = null
        if (nodeId === null && !serving) {
          // The panel took the token: the node serves (its masters, its services' servers), then says at once what
          // it runs, before the agent calls itself connected, so the panel knows by then.
          serving = true
          for (const command of work.commands) schedule(command)
          await node.serve(() => {
            known = null
          })
          known = null
          continue
        }
        if (nodeId === null) {
          nodeId = work.nodeId
          log(
            { nodeId, session, panel: settings.panelUrl },
            `Plinth node agent connected to ${settings.panelUrl} as node ${nodeId}`,
          )
          onConnected(nodeId)
        }
        for (const command of work.commands) schedule(command)
        backoff = 500
      } catch (error) {
        if (error instanceof AgentRefused) throw error
        if (stopping.signal.aborted) return
        log({ err: String(error), retryInMs: backoff }, 'cannot reach the panel; trying again')
        await Bun.sleep(backoff)
        backoff = Math.min(backoff * 2, 10_000)
      }
    }
  }

  async function reportTraffic(): Promise<void> {
    // Disk is walked less often than logs are read: every site's files, every tenth report (the first included).
    let round = 0
    while (!stopping.signal.aborted) {
      await Promise.race([
        Bun.sleep(settings.reportSeconds * 1000),
        new Promise((r) => stopping.signal.addEventListener('abort', r, { once: true })),
      ])
      if (stopping.signal.aborted || nodeId === null) continue
      try {
        const samples = (await node.traffic()).filter((reading) => reading.requests > 0 || reading.bytes > 0)
        const disk = round++ % 10 === 0 ? await node.disk() : null
        for (let i = 0; i < samples.length; i += 1000)
          await call(`/nodes/${nodeId}/metrics`, { samples: samples.slice(i, i + 1000) }, 30_000)
        if (disk) await call(`/nodes/${nodeId}/metrics`, { samples: [], disk }, 30_000)
      } catch (error) {
        log(
          { err: String(error) },
          'traffic or disk report failed; the traffic counts are lost for this period',
        )
      }
    }
  }

  /** Tells the panel this run stops, so it shows the node disconnected at once; a panel out of reach is not waited for. */
  async function sayLeaving(): Promise<void> {
    try {
      const response = await fetch(`${settings.panelUrl}/api/v1/agent/leaving`, {
        method: 'POST',
        headers: { authorization: `Bearer ${settings.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session } satisfies AgentLeaving),
        signal: AbortSignal.timeout(3_000),
      })
      await response.body?.cancel()
      log({ status: response.status }, 'told the panel the agent stops')
    } catch (error) {
      log({ err: String(error) }, 'could not tell the panel the agent stops')
    }
  }

  const done = (async () => {
    try {
      await Promise.all([poll(), reportTraffic()])
    } finally {
      await Promise.allSettled([...running])
    }
  })()

  return {
    connected,
    done,
    async stop() {
      stopping.abort()
      await done.catch(() => {})
      if (nodeId !== null) await sayLeaving()
    },
  }
}
