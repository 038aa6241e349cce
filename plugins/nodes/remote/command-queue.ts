// The commands for node agents, kept in the store so any instance can hand them out and any can read the answer:
// a driver call queues one and waits for its answer; the agent's poll takes the node's queued commands (and those
// sent to an earlier run of the agent, which never answered), and its answer settles the command.

import { type Db, JobAttemptFailure, newId, nowIso, type PluginContext, sql } from '../../../core/index.ts'
import { NodeFailure, NodeRefusal, NodeUnreachable } from '../contract.ts'
import type { NodeCommandsTable, NodesTables } from '../migrations.ts'
import type { AgentCommand, AgentResult } from '../node/agent/protocol.ts'
import { agentSilenceMs } from '../node/agent/protocol.ts'
import type { NodeCommand } from '../node/operations.ts'

const tables = (db: Db) => db.withTables<NodesTables>()

/** How often a waiting side looks at the store when no wake-up came (another instance may have answered). */
const lookEveryMs = 250
/** Most commands handed out in one poll. */
const batch = 20
/** Most sealed payload bytes handed out in one poll (beyond its first command). */
const batchBytes = 16 * 1024 * 1024

/** An answer as kept in the store: what the operation resolved with sealed (a site's file may hold its secrets). */
interface KeptResult extends Omit<AgentResult, 'result'> {
  readonly resultSealed?: string
}

/** The job attempt a command belongs to. */
export interface CommandRun {
  readonly jobId: string
  readonly attempt: number
}

/** Wake-ups within this process: a poll waiting for its node's commands, a driver waiting for an answer. */
class Wakes {
  readonly #waiting = new Map<string, Set<() => void>>()

  /** Resolves on `wake(key)`, or after `ms`. */
  wait(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.#waiting.get(key) ?? new Set()
      this.#waiting.set(key, set)
      const done = () => {
        clearTimeout(timer)
        set.delete(done)
        if (set.size === 0) this.#waiting.delete(key)
        resolve()
      }
      const timer = setTimeout(done, ms)
      set.add(done)
    })
  }

  wake(key: string): void {
    for (const done of [...(this.#waiting.get(key) ?? [])]) done()
  }
}

/** The command queue of a panel. */
export function createCommandQueue(context: Pick<PluginContext, 'db' | 'transaction' | 'secrets'>) {
  const wakes = new Wakes()

  async function agentSilent(nodeId: string): Promise<boolean> {
    const node = await tables(context.db)
      .selectFrom('nodes')
      .select('agent_seen_at')
      .where('id', '=', nodeId)
      .executeTakeFirst()
    const seen = node?.agent_seen_at ? Date.parse(node.agent_seen_at) : 0
    return Date.now() - seen > agentSilenceMs
  }

  /** Removes a call's command once its answer was read (or it was given up on): an answer late for it finds none. */
  async function forget(id: string): Promise<void> {
    await tables(context.db).deleteFrom('node_commands').where('id', '=', id).execute()
  }

  async function settle(id: string, status: 'abandoned'): Promise<void> {
    await tables(context.db)
      .updateTable('node_commands')
      .set({ status, payload_sealed: null, finished_at: nowIso() })
      .where('id', '=', id)
      .where('status', 'in', ['queued', 'sent'])
      .execute()
  }

  return {
    /**
     * Queues `command` for the node's agent and waits for its answer: what the operation resolved with. `subject` is
     * what it is about (a site id, or `acme`): the agent runs one subject's commands one after another. The payload
     * is sealed at rest (a site's database password, a certificate's private key) and cleared once answered. A
     * failed command fails the attempt (a `NodeFailure`, or a service's `NodeRefusal`, when the agent says repeating
     * cannot help); so does an agent silent for a minute while the command waits, or `signal` aborting. The command
     * is then abandoned: an agent that still answers it later changes nothing, and the job's next attempt sends it
     * again (operations are idempotent). A command that `changes` the node stays in its history once answered; any
     * other is removed once its answer was read.
     */
    async send(
      nodeId: string,
      command: NodeCommand,
      subject: string,
      changes: boolean,
      run: CommandRun,
      signal: AbortSignal,
    ): Promise<unknown> {
      const { operation, payload } = command
      const id = newId('cmd')
      await tables(context.db)
        .insertInto('node_commands')
        .values({
          id,
          node_id: nodeId,
          job_id: run.jobId,
          attempt: run.attempt,
          operation,
          site_id: subject,
          payload_sealed: context.secrets.seal(JSON.stringify(payload)),
          status: 'queued',
          session: null,
          result: null,
          created_at: nowIso(),
          sent_at: null,
          finished_at: null,
        })
        .execute()
      wakes.wake(`node:${nodeId}`)
      try {
        for (;;) {
          signal.throwIfAborted()
          // Its state only: the payload (a file's part of 4 MiB) is not read back while the command waits.
          const row = await tables(context.db)
            .selectFrom('node_commands')
            .select(['status', 'result', 'sent_at', 'created_at'])
            .where('id', '=', id)
            .executeTakeFirst()
          if (!row) throw new Error(`The command ${id} vanished`)
          if (row.status === 'succeeded') {
            const kept = JSON.parse(row.result ?? '{}') as KeptResult
            const result: unknown =
              kept.resultSealed === undefined
                ? undefined
                : JSON.parse(context.secrets.open(kept.resultSealed))
            // Read once: what the node sent (a file's content) is not kept, nor the call (a shell makes several a
            // second); changes of sites stay, for their jobs' history.
            if (!changes) await forget(id)
            return result
          }
          if (row.status === 'failed') {
            const error = (JSON.parse(row.result ?? '{}') as KeptResult).error
            if (!changes) await forget(id)
            if (error?.final && error.refusal && error.code)
              throw new NodeRefusal(error.code, error.message, error.details)
            const message = `The node's agent failed to carry out ${operation} for ${subject}: ${error?.message ?? 'no reason given'}`
            if (error?.final) throw new NodeFailure(message, error.code ?? 'agent_refused')
            // Worth another attempt, with what the agent called it (`disk_full`).
            throw new JobAttemptFailure(message, error?.code ?? 'node_error')
          }
          if (await agentSilent(nodeId)) {
            const since = Date.parse(row.sent_at ?? row.created_at)
            if (Date.now() - since > agentSilenceMs)
              throw new NodeUnreachable(
                `The node's agent has not been connected for a minute; the ${operation} waits for it`,
              )
          }
          await Promise.race([
            wakes.wait(`command:${id}`, lookEveryMs),
            new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
          ])
        }
      } catch (error) {
        if (changes) await settle(id, 'abandoned')
        else await forget(id)
        throw error
      }
    },

    /**
     * The node's commands for the agent run `session`: those queued, those sent to an earlier run that never
     * answered (the agent restarted), and those sent to this run that it does not hold (`holding`: the answer to
     * its poll was lost on the way). Waits up to `waitMs` for one to come. Marks them sent to `session`.
     */
    async take(
      nodeId: string,
      session: string,
      waitMs: number,
      holding: readonly string[] = [],
    ): Promise<AgentCommand[]> {
      const held = new Set(holding)
      const deadline = Date.now() + waitMs
      for (;;) {
        const taken = await context.transaction(async (trx) => {
          // Which are due, read without their payloads (the parts of a file on their way are megabytes each).
          const rows = await tables(trx)
            .selectFrom('node_commands')
            .select(['id', 'status', 'session', sql<number>`length(payload_sealed)`.as('size')])
            .where('node_id', '=', nodeId)
            .where((eb) => eb.or([eb('status', '=', 'queued'), eb('status', '=', 'sent')]))
            .orderBy('id')
            .limit(batch + held.size)
            .execute()
          // Sent to this run and not held by it: the poll that carried it never reached the agent.
          const due: string[] = []
          let bytes = 0
          for (const row of rows) {
            if (!(row.status === 'queued' || row.session !== session || !held.has(row.id))) continue
            // One poll carries a few parts of files at most, so its answer stays a few megabytes.
            if (due.length > 0 && (due.length >= batch || bytes + Number(row.size ?? 0) > batchBytes)) break
            due.push(row.id)
            bytes += Number(row.size ?? 0)
          }
          if (due.length === 0) return []
          await tables(trx)
            .updateTable('node_commands')
            .set({ status: 'sent', session, sent_at: nowIso() })
            .where('id', 'in', due)
            .execute()
          return tables(trx)
            .selectFrom('node_commands')
            .selectAll()
            .where('id', 'in', due)
            .orderBy('id')
            .execute()
        })
        if (taken.length > 0) return taken.flatMap((row) => commandOf(row))
        const left = deadline - Date.now()
        if (left <= 0) return []
        await wakes.wait(`node:${nodeId}`, Math.min(left, 1_000))
      }
    },

    /** Records the agent's answer to a command sent to it; answers false when it is not (or no longer) waited for. */
    async answer(nodeId: string, id: string, result: AgentResult): Promise<boolean> {
      const { result: resolved, ...rest } = result
      const kept: KeptResult =
        resolved === undefined
          ? rest
          : { ...rest, resultSealed: context.secrets.seal(JSON.stringify(resolved)) }
      const updated = await tables(context.db)
        .updateTable('node_commands')
        .set({
          status: result.ok ? 'succeeded' : 'failed',
          result: JSON.stringify(kept),
          payload_sealed: null,
          finished_at: nowIso(),
        })
        .where('id', '=', id)
        .where('node_id', '=', nodeId)
        .where('status', 'in', ['queued', 'sent'])
        .executeTakeFirst()
      wakes.wake(`command:${id}`)
      return Number(updated.numUpdatedRows) === 1
    },
  }

  function commandOf(row: NodeCommandsTable): AgentCommand[] {
    if (row.payload_sealed === null) return []
    return [
      {
        id: row.id,
        operation: row.operation,
        jobId: row.job_id,
        attempt: row.attempt,
        subject: row.site_id,
        payload: JSON.parse(context.secrets.open(row.payload_sealed)),
      },
    ]
  }
}

export type CommandQueue = ReturnType<typeof createCommandQueue>
