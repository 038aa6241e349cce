// The node as its agent drives it: the modules the panel names loaded from the agent's own install (the same files
// the panel's plugins declared them in), and each command carried out on the node with the operation it names.

import { existsSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import type { NodeModule } from '../contract.ts'
import { type KeptServing, keepServing } from '../keep-serving.ts'
import type { PlinthNode } from '../node.ts'
import { type NodeOperationName, operationOf } from '../operations.ts'
import type { AgentLog, AgentNode } from './agent-loop.ts'
import type { AgentModule } from './protocol.ts'

/** The install the agent runs from: the root its modules' sources are named below. */
export const codeRoot = resolve(import.meta.dir, '..', '..', '..', '..')

/**
 * Where a module's source may point: a plugin's node module, `<folders>/node/index.ts`, below the code root by a
 * plain relative path (never `..`, never absolute).
 */
const sourcePattern = /^(?:[A-Za-z0-9_@.-]+\/)+node\/index\.ts$/

/**
 * Refuses a file nobody but root (or the agent's own user) could have written: the file and every folder from it up
 * to the code root belong to one of them and let no group or other user write, as OpenSSH's StrictModes asks of a
 * key. A site's files (an agent data directory inside the install, say) are its Unix user's: never loaded.
 */
async function checkOwnership(path: string, root: string): Promise<void> {
  const owners = new Set([0, process.getuid?.() ?? 0])
  for (let current = path; ; current = dirname(current)) {
    const stats = await stat(current)
    if (!owners.has(stats.uid) || (stats.mode & 0o022) !== 0)
      throw new Error(`${relative(root, current) || '.'} may be written by another user than the agent's`)
    if (current === root || current === dirname(current)) return
  }
}

/**
 * The module the panel names, imported from this install: a plugin's `node/index.ts` below the code root, written by
 * no other user than root or the agent's, default-exporting a node module of that name. The panel already commands
 * the node; this keeps its word from naming code a site could have written, or code outside the install.
 */
export async function importModule(reference: AgentModule, root = codeRoot): Promise<NodeModule<never>> {
  const refuse = () =>
    new Error(`its source ${JSON.stringify(reference.source)} is not a node module of the agent's install`)
  if (!sourcePattern.test(reference.source) || reference.source.split('/').includes('..')) throw refuse()
  if (!existsSync(resolve(root, reference.source)))
    throw new Error(`this install has no ${reference.source} (is the agent older than the panel?)`)
  // Where the path really leads, links resolved: still a node module of the install.
  const realRoot = await realpath(root)
  const path = await realpath(resolve(root, reference.source))
  const inside = relative(realRoot, path)
  if (inside.startsWith('..') || isAbsolute(inside) || !sourcePattern.test(inside)) throw refuse()
  await checkOwnership(path, realRoot)
  const loaded = ((await import(path)) as { default?: NodeModule<never> }).default
  if (!loaded || typeof loaded.create !== 'function' || loaded.name !== reference.name)
    throw new Error(`${reference.source} does not default-export the node module ${reference.name}`)
  return loaded
}

/** The agent's view of `node`, and how to stop what its services keep running. */
export function agentNode(
  node: PlinthNode,
  log: AgentLog,
  root = codeRoot,
): AgentNode & { stopServices(): Promise<void> } {
  const running = new Set<string>()
  const tried = new Set<string>()
  let stopServices: () => Promise<void> = async () => {}
  let serving: KeptServing | null = null
  return {
    capabilities: () => node.capabilities(),
    async serve(readinessChanged) {
      // Sites served before a restart of the agent are served again at once, not at their next change; a node that
      // cannot serve (its port taken) says why, and its watch starts it again once it can.
      serving = keepServing(node.runtime, {
        changed(readiness, previous) {
          if (!readiness.ready)
            log(
              { level: 'error', reasons: readiness.reasons },
              `not ready to serve sites: ${readiness.reasons.map((reason) => reason.message).join('; ')}`,
            )
          else if (previous) log({}, 'ready: serving sites again')
          if (previous) readinessChanged()
        },
      })
      await serving.first
      stopServices = await node.startServices((level, fields, message) => log({ level, ...fields }, message))
    },
    async stopServices() {
      await serving?.stop()
      await stopServices()
    },
    async loadModules(modules) {
      const entries = []
      // Every poll names them: those running already are not looked at again; one that failed is tried again.
      for (const reference of modules.filter(({ name }) => !running.has(name))) {
        try {
          entries.push({ module: await importModule(reference, root) })
        } catch (error) {
          // Told like a module that failed to start: in what the node lacks.
          entries.push({ module: brokenModule(reference.name, (error as Error).message) })
        }
      }
      const added = await node.use(entries)
      for (const name of added) running.add(name)
      // What the node offers changed: a module came, or one failed for the first time (now in what it lacks, and
      // said on the agent's log).
      const first = entries.filter(({ module }) => !tried.has(module.name))
      for (const { module } of first) {
        tried.add(module.name)
        const why = node.failures().get(module.name)
        if (why) log({ module: module.name, err: why }, `the node module ${module.name} could not be loaded`)
      }
      return added.length > 0 || first.length > 0
    },
    run(command, signal) {
      if (!operationOf(command.operation))
        throw new Error(
          `This agent knows no operation ${JSON.stringify(command.operation)} (is it older than the panel?)`,
        )
      return node.run(
        { operation: command.operation as NodeOperationName, payload: command.payload as never },
        signal,
      )
    },
    traffic: () => node.runtime.traffic(),
    disk: () => node.runtime.disk(),
  }
}

/** A module that fails when made, saying why it could not be loaded. */
const brokenModule = (name: string, why: string): NodeModule<never> => ({
  name,
  source: '',
  create() {
    throw new Error(why)
  },
})
