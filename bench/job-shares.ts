// How long one customer's backlog holds another customer's work (docs/performance.md quotes it):
// `bun bench/job-shares.ts` (`BENCH_STORE=sqlite|postgres`, default sqlite; DATABASE_URL as for the tests). Customer
// A queues 50 commands (the `exec` lane, 4 workers) and 50 archives, each taking a second; then customer B runs one
// command and staff suspend one of B's sites. Printed: how long after being queued B's command and the suspension
// started. The job kinds are declared as the shell, files and sites plugins declare theirs: on a kernel without
// shares (before issue 28) archives run in the shared pool and suspensions are not urgent, as they were then, so the
// same script measures before and after.

import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { createPanel, jsonLinesLogger, newId, openPostgresStore, openSqliteStore } from '../core/host.ts'
import type { PluginContext } from '../core/index.ts'
import { definePlugin } from '../core/plugin/define-plugin.ts'

const jobMs = Number(process.env.JOB_MS ?? 1_000)
const engine = process.env.BENCH_STORE ?? 'sqlite'
/** Whether this kernel shares lanes between customers (it has the claims of issue 28). */
const shares = existsSync(join(import.meta.dir, '../core/jobs/job-claim.ts'))

const started = new Map<string, number>()
let context: PluginContext | undefined
const take = async (job: { id: string }) => {
  started.set(job.id, Date.now())
  await Bun.sleep(jobMs)
  return {}
}
const work = definePlugin({
  name: 'work',
  version: '1.0.0',
  description: 'Customers’ commands and archives, and suspensions.',
  setup(given) {
    context = given
  },
  jobs: () => [
    { kind: 'work.exec', description: 'A command.', lane: { name: 'exec', concurrency: 4 }, run: take },
    {
      kind: 'work.archive',
      description: 'An archive.',
      ...(shares ? { lane: { name: 'archives', concurrency: 2 } } : {}),
      run: take,
    },
    {
      kind: 'work.suspend',
      description: 'A suspension.',
      ...(shares ? { priority: 'urgent' as const } : {}),
      run: take,
    },
  ],
})

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `bench_shares_${process.pid}`
const admin = engine === 'postgres' ? postgres(url, { max: 1, onnotice: () => {} }) : null
await admin?.unsafe(`create schema "${schema}"`)
const store =
  engine === 'postgres'
    ? openPostgresStore({ url, schema })
    : openSqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'plinth-shares-')), 'plinth.sqlite') })
const panel = await createPanel({
  store,
  plugins: [work],
  secret: 'job-shares-bench-secret-job-shares!!',
  logger: jsonLinesLogger({ level: 'error' }),
  metrics: false,
  jobs: { concurrency: 4 },
})
if (!context) throw new Error('The plugin was not set up')
const plugin = context

/** Queues `count` jobs of `kind` for `customer`; their ids and when they committed. */
async function enqueue(kind: string, customer: string, count: number) {
  const ids = await plugin.transaction(async (trx) => {
    const made: string[] = []
    for (let i = 0; i < count; i++)
      made.push(
        await plugin.enqueueJob(trx, {
          kind,
          customerId: customer,
          subject: { type: 'site', id: newId('site') },
        }),
      )
    return made
  })
  return { id: ids[0] as string, at: Date.now() }
}

async function delayOf(job: { id: string; at: number }): Promise<number> {
  while (!started.has(job.id)) await Bun.sleep(5)
  return (started.get(job.id) as number) - job.at
}

panel.start()
await enqueue('work.exec', 'cus_a', 50)
await enqueue('work.archive', 'cus_a', 50)
await Bun.sleep(100)
const command = await enqueue('work.exec', 'cus_b', 1)
const suspension = await enqueue('work.suspend', 'cus_b', 1)
const [commandMs, suspensionMs] = await Promise.all([delayOf(command), delayOf(suspension)])
console.log(
  JSON.stringify({ engine, shares, jobMs, bCommandWaitedMs: commandMs, bSuspensionWaitedMs: suspensionMs }),
)
await panel.close()
await admin?.unsafe(`drop schema "${schema}" cascade`)
await admin?.end()
process.exit(0)
