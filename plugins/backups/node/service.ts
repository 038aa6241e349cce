// The `backups` node service: runs (backup, restore, forget, archive) started, read, cancelled, and finished
// archives read in pieces and dropped. Everything it is sent is checked again here: the node never trusts the
// panel's checks alone.

import { existsSync } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import {
  NodeRefusal,
  type NodeService,
  type NodeServiceHost,
  type NodeSite,
} from '../../nodes/node/contract.ts'
import { runArchive } from './archive-task.ts'
import { type ArchiveStore, archiveChunkBytes, archiveStore } from './archives.ts'
import { runBackup } from './backup-task.ts'
import { runForget } from './forget-task.ts'
import { type BackupTask, backupsServiceName } from './protocol.ts'
import { inTurn, repositoryKey } from './repository-turns.ts'
import { localName, repositoriesDir } from './restic-env.ts'
import { runRestore } from './restore-task.ts'
import { createRuns, type TaskBody } from './runs.ts'
import { describeTools, missingTools } from './tools.ts'

const malformed = (what: string) =>
  new NodeRefusal('malformed_backups_request', `Malformed backups request: ${what}`)

const text = (value: unknown, what: string): string => {
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) throw malformed(what)
  return value
}
const count = (value: unknown, what: string, max: number): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) throw malformed(what)
  return value
}

/** The service; its runs live as long as the node process. */
export function backupsNodeService(): NodeService {
  let host: NodeServiceHost | null = null
  let archives: ArchiveStore | null = null
  const ready = () => {
    if (!host || !archives)
      throw new NodeRefusal(
        'backups_not_started',
        'The node’s backups service has not started (its folder is not ready).',
      )
    return { host, archives }
  }
  const runs = createRuns(
    () => ready().host.dataDir,
    (error, runId) =>
      host?.log('error', { service: backupsServiceName, runId, err: String(error) }, 'backup run failed'),
  )

  function body(site: NodeSite, task: BackupTask): TaskBody {
    const store = ready().archives
    const work = (): TaskBody => {
      switch (task?.task) {
        case 'backup':
          return (context) => runBackup(task, site, context)
        case 'restore':
          return (context) => runRestore(task, site, context)
        case 'forget':
          return (context) => runForget(task, context)
        case 'archive':
          return (context) => runArchive(task, site, context, store)
        default:
          throw malformed('run.task')
      }
    }
    const run = work()
    if (typeof task.repository !== 'object' || task.repository === null) throw malformed('run.repository')
    const key = repositoryKey(task.repository.location)
    return (context) => inTurn(key, context, () => run(context))
  }

  return {
    name: backupsServiceName,
    async handle(site, request) {
      const call = (request ?? {}) as Record<string, unknown>
      switch (call.op) {
        case 'run.start': {
          if (typeof call.run !== 'object' || call.run === null) throw malformed('run')
          return { runId: runs.start(site, body(site, call.run as BackupTask)) }
        }
        case 'run.read':
          return runs.read(site, text(call.runId, 'runId'), count(call.waitMs ?? 0, 'waitMs', 30_000))
        case 'run.cancel':
          runs.cancel(site, text(call.runId, 'runId'))
          return {}
        case 'archive.read':
          return ready().archives.read(
            site.id,
            text(call.archiveId, 'archiveId'),
            count(call.offset, 'offset', Number.MAX_SAFE_INTEGER),
            count(call.length, 'length', archiveChunkBytes),
          )
        case 'archive.drop':
          await ready().archives.drop(site.id, text(call.archiveId, 'archiveId'))
          return {}
        default:
          throw malformed('op')
      }
    },
    // A deleted site's `local` repository: the node no longer holds the site, so the call is about the node.
    async handleNode(request) {
      const call = (request ?? {}) as Record<string, unknown>
      if (call.op !== 'repository.drop') throw malformed('op')
      const name = text(call.name, 'name')
      if (!localName.test(name) || name.includes('..')) throw malformed('name')
      const folder = join(repositoriesDir(ready().host.dataDir), name)
      const dropped = existsSync(folder)
      await rm(folder, { recursive: true, force: true })
      return { dropped }
    },
    async describe() {
      return describeTools()
    },
    lacks: missingTools,
    async start(given) {
      host = given
      archives = archiveStore(given.dataDir)
      for (const dir of ['repositories', 'cache', 'tmp', 'keys', 'staging', 'scratch', 'archives'])
        await mkdir(join(given.dataDir, dir), { recursive: true, mode: 0o700 })
      // What a node stopped mid-run left: dumps, scratch copies, keys (never a repository).
      for (const dir of ['staging', 'scratch', 'keys', 'tmp']) {
        await rm(join(given.dataDir, dir), { recursive: true, force: true })
        await mkdir(join(given.dataDir, dir), { mode: 0o700 })
      }
      const store = archives
      await store.sweep()
      const sweeper = setInterval(() => void store.sweep().catch(() => {}), 5 * 60_000)
      sweeper.unref?.()
      return async () => {
        clearInterval(sweeper)
        runs.stopAll()
      }
    },
  }
}
