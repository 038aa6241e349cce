// The `cron` node service: runs of sites' cron jobs started, read and forgotten, and WP-Cron turned off or on in a
// WordPress site's wp-config.php. Everything it is sent is checked again here: the node never trusts the panel's
// checks alone.

import { NodeRefusal, type NodeService } from '../../nodes/node/contract.ts'
import {
  type CronTask,
  commandProblem,
  cronServiceName,
  runIdPattern,
  timeoutMaxSeconds,
} from './protocol.ts'
import { createCronRuns } from './runs.ts'
import { setWpCron } from './wp-config-cron.ts'

const malformed = (what: string) =>
  new NodeRefusal('malformed_cron_request', `Malformed cron request: ${what}`)

function runId(value: unknown): string {
  if (typeof value !== 'string' || !runIdPattern.test(value)) throw malformed('runId')
  return value
}

function task(value: unknown): CronTask {
  const given = (value ?? {}) as Record<string, unknown>
  if (given.kind === 'wp-cron') return { kind: 'wp-cron' }
  if (given.kind !== 'command' || typeof given.command !== 'string') throw malformed('task')
  const problem = commandProblem(given.command)
  if (problem) throw new NodeRefusal('unsafe_cron_command', problem)
  return { kind: 'command', command: given.command }
}

function timeout(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > timeoutMaxSeconds)
    throw malformed('timeoutSeconds')
  return value
}

/** The service; its runs live as long as the node process. */
export function cronNodeService(): NodeService {
  const runs = createCronRuns()
  return {
    name: cronServiceName,
    async handle(site, request, signal) {
      const call = (request ?? {}) as Record<string, unknown>
      switch (call.op) {
        case 'run.start':
          return runs.start(site, runId(call.runId), task(call.task), timeout(call.timeoutSeconds))
        case 'run.read':
          return runs.read(site, runId(call.runId))
        case 'run.forget':
          runs.forget(site, runId(call.runId))
          return {}
        case 'wp-cron.set':
          if (typeof call.disabled !== 'boolean') throw malformed('disabled')
          await setWpCron(site, call.disabled, signal)
          return {}
        default:
          throw malformed('op')
      }
    },
    async start() {
      return async () => runs.stopAll()
    },
  }
}
