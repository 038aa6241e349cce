// A test plugin adding the `slow` node driver: the installed `local` driver, with pauses between its steps and
// points where it can be held until the process is killed, so a crash test has a middle to kill in.

import { readdirSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { definePlugin } from '../../core/index.ts'
import { type NodeDriver, nodeDrivers, type SiteSpec } from '../../plugins/nodes/contract.ts'
import { siteTypes } from '../../plugins/sites/contract.ts'

/**
 * Where a provisioning can be held until the process is killed:
 * - `before-files`: the job is running and its step is under way, nothing is on the node yet (an abortable wait);
 * - `mid-write`: the local driver has written a temporary file and not yet put it in place (the whole process
 *   freezes there, as a crash at that instant would leave it);
 * - `after-files`: the node's files are complete, the job has not recorded it (an abortable wait).
 */
export const holdPoints = ['before-files', 'mid-write', 'after-files'] as const
export type HoldPoint = (typeof holdPoints)[number]

/** Options of {@link slowNodePlugin}. */
export interface SlowNodeOptions {
  /** The panel's data directory, where the local driver keeps sites (`<dataDir>/sites/<site id>/`). */
  readonly dataDir: string
  /** The pause before and after the local driver's work, in ms. Default 100. */
  readonly pauseMs?: number
  /** Where provisioning waits until the process is killed. Default none: it runs through. */
  readonly hold?: HoldPoint
}

/** Prints one line to stdout at once (a frozen process never flushes buffered output). */
function announce(line: string): void {
  writeSync(1, `slow-node: ${line}\n`)
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop)
      resolve()
    }, ms)
    const stop = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', stop, { once: true })
  })
}

/** A temporary file of the local driver's whole-file writes (`<name>.<pid>.<random>.tmp`) under `dir`, or null. */
function temporaryFileUnder(dir: string): string | null {
  try {
    const names = readdirSync(dir, { recursive: true }) as string[]
    return names.find((name) => name.endsWith('.tmp')) ?? null
  } catch {
    return null
  }
}

/**
 * `signal` as the local driver sees it, except that its checks between writes freeze the process for good once a
 * temporary file exists under `siteDir`: the state a crash in the middle of a write leaves behind.
 */
function freezingMidWrite(signal: AbortSignal, site: SiteSpec, siteDir: string): AbortSignal {
  const throwIfAborted = () => {
    signal.throwIfAborted()
    const temporary = temporaryFileUnder(siteDir)
    if (temporary === null) return
    announce(`holding ${site.id} at mid-write (${temporary})`)
    for (;;) Bun.sleepSync(1_000)
  }
  return new Proxy(signal, {
    get(target, property) {
      if (property === 'throwIfAborted') return throwIfAborted
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** The `slow` driver around `local`, looked up when used (the nodes plugin adds it after this plugin's setup). */
function slowDriver(local: () => NodeDriver, options: SlowNodeOptions): NodeDriver {
  const pauseMs = options.pauseMs ?? 100

  /** A pause between steps; at the hold point, a wait only an abort (or the end of the process) ends. */
  async function step(site: SiteSpec, point: HoldPoint, signal: AbortSignal): Promise<void> {
    if (options.hold !== point) return pause(pauseMs, signal)
    announce(`holding ${site.id} at ${point}`)
    await pause(2 ** 31 - 1, signal)
  }

  /** The site changes that pause before and after: the rest (certificates, challenges, calls) goes straight through. */
  const paused = new Set(['update', 'suspend', 'unsuspend', 'delete'])

  return {
    name: 'slow',
    description: 'The local driver with pauses between steps (tests only).',
    async send(node, command, signal, run) {
      if (command.operation === 'provision') {
        const site = command.payload as SiteSpec
        await step(site, 'before-files', signal)
        const held =
          options.hold === 'mid-write'
            ? freezingMidWrite(signal, site, join(options.dataDir, 'sites', site.id))
            : signal
        const result = await local().send(node, command, held, run)
        announce(`provisioned ${site.id}`)
        await step(site, 'after-files', signal)
        return result
      }
      if (!paused.has(command.operation)) return local().send(node, command, signal, run)
      await pause(pauseMs, signal)
      const result = await local().send(node, command, signal, run)
      await pause(pauseMs, signal)
      return result
    },
  }
}

/**
 * Adds the `slow` node driver (tests only): nodes created with `driver: "slow"` run their sites through it. Its sites
 * are `plain` (files the local driver lays out), which it adds: a WordPress site is never a placeholder, and the
 * slow node reports nothing it runs.
 */
export const slowNodePlugin = (options: SlowNodeOptions) =>
  definePlugin({
    name: 'slow-node',
    version: '0.1.0',
    description: 'Test plugin: the `slow` node driver, the local driver with pauses and hold points.',
    requires: ['nodes', 'sites'],
    setup(context) {
      context.extensionPoint(siteTypes).add({ name: 'plain', description: 'Plain files (tests only).' })
      const drivers = context.extensionPoint(nodeDrivers)
      const local = () => {
        const driver = drivers.get('local')
        if (!driver) throw new Error('The slow driver wraps the local driver, which is not installed')
        return driver
      }
      drivers.add(slowDriver(local, options))
    },
  })
