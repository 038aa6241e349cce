// The `local` node while the panel runs: what its runtime can run, recorded on the node as an agent's would be (so
// the node says whether it serves or only lays out files), its masters started, reconciled with the panel's records,
// and its sites' traffic counted.

import type { PluginContext } from '../../core/index.ts'
import { recordReport } from './capabilities-record.ts'
import type { LocatedSite } from './contract.ts'
import { recordDisk } from './disk.ts'
import type { LocalDriver } from './drivers/local.ts'
import type { NodesTables } from './migrations.ts'
import { type KeptServing, keepServing } from './node/index.ts'
import { startReconcile } from './reconcile.ts'
import { recordTraffic } from './traffic.ts'

/** How often the local sites' access logs are read for traffic. */
const trafficEveryMs = 60_000

/** How often the local node says again what it runs, as an agent reads its capabilities again (agent-loop.ts). */
const reportEveryMs = 60_000

/**
 * Starts the local node's background work; answers how to stop it (the masters keep serving). Calls `onReported`
 * once the node first recorded what it runs (or its start failed); says it again every `reportEveryMs`.
 */
export function startLocalNode(
  context: PluginContext,
  driver: LocalDriver,
  version: string,
  locate: (siteIds: readonly string[]) => Promise<ReadonlyMap<string, LocatedSite>>,
  options: { readonly onReported?: () => void; readonly reportEveryMs?: number } = {},
): () => Promise<void> {
  const onReported = options.onReported ?? (() => {})
  let stopped = false
  let stopServices: () => Promise<void> = async () => {}
  /** Records what the local node runs now, as an agent's report is (the plugins that follow what nodes run do). */
  const report = async () => {
    const reported = await driver.node.capabilities()
    const rows = await context.db
      .withTables<NodesTables>()
      .selectFrom('nodes')
      .selectAll()
      .where('driver', '=', 'local')
      .execute()
    for (const row of rows) await recordReport(context, row, { version }, reported)
    return reported
  }
  let serving: KeptServing | null = null
  const ready = (async () => {
    // The node modules the plugins declared, made before anything asks for them; then said at once (what it runs
    // and what is on its way: the node's own database server, made on a first start in a few seconds).
    await driver.loadModules()
    // Sites served before a restart are served again at once, not at their next change; a node that cannot serve
    // (its port taken by another program) says why, and its watch starts it again once it can. The first
    // report follows the first start, so it says whether the node serves.
    serving = keepServing(driver.node.runtime, {
      async changed(readiness, previous) {
        // Recorded at once (placement reads it), then said.
        await report()
        onReported()
        if (!readiness.ready)
          context.log.error(
            { reasons: readiness.reasons },
            `the local node is not ready to serve sites: ${readiness.reasons.map((reason) => reason.message).join('; ')}`,
          )
        else if (previous) context.log.info({}, 'the local node is ready: it serves its sites again')
      },
    })
    await serving.first
    // What the node's services keep running (the SFTP server, the node's MariaDB), logged with the panel's lines.
    stopServices = await driver.node.startServices((level, fields, message) =>
      context.log[level]({ ...fields }, message),
    )
    const reported = await report()
    // What the node holds, compared with the panel's records (a store restored, a data directory lost).
    await context.transaction(async (trx) => {
      const rows = await trx
        .withTables<NodesTables>()
        .selectFrom('nodes')
        .select('id')
        .where('driver', '=', 'local')
        .execute()
      for (const row of rows) await startReconcile(trx, context, row.id)
    })
    // What it lacks, said once at every start, with the one command that installs it.
    if (reported.missing.length > 0)
      context.log.warn(
        { missing: reported.missing, fix: reported.setup },
        `the local node lacks ${reported.missing.map((lack) => `${lack.what} (for ${lack.for})`).join(', ')}: run \`${reported.setup}\``,
      )
  })()
    .catch((error: unknown) =>
      context.log.error({ err: error }, 'the local node could not start serving its sites'),
    )
    .finally(onReported)

  const countTraffic = async () => {
    const readings = (await driver.node.runtime.traffic()).filter(
      (reading) => reading.requests > 0 || reading.bytes > 0,
    )
    if (readings.length === 0) return
    const located = await locate(readings.map((reading) => reading.siteId))
    await context.transaction(async (trx) => {
      const samples = []
      for (const reading of readings) {
        const site = located.get(reading.siteId)
        if (!site) continue
        samples.push({
          scopes: await context.usage.scopesOf(trx, site.customerId),
          at: new Date(reading.at),
          requests: reading.requests,
          bytes: reading.bytes,
        })
      }
      await recordTraffic(trx, samples)
    })
  }
  const measureDisk = async () => {
    const sites = await driver.node.runtime.disk()
    const located = await locate(sites.map((site) => site.siteId))
    await context.transaction(async (trx) => {
      const samples = []
      for (const site of sites) {
        const where = located.get(site.siteId)
        if (!where) continue
        samples.push({
          siteId: site.siteId,
          bytes: site.bytes,
          scopes: await context.usage.scopesOf(trx, where.customerId),
        })
      }
      const node = await trx
        .withTables<NodesTables>()
        .selectFrom('nodes')
        .select('id')
        .where('driver', '=', 'local')
        .executeTakeFirst()
      if (node) await recordDisk(trx, node.id, samples, new Date())
    })
  }
  let round = 0
  const timer = setInterval(() => {
    if (stopped) return
    void countTraffic().catch((error: unknown) =>
      context.log.warn({ err: error }, 'local traffic not counted'),
    )
    // Every site's files are walked every tenth minute.
    if (round++ % 10 === 0)
      void measureDisk().catch((error: unknown) =>
        context.log.warn({ err: error }, 'local disk use not measured'),
      )
  }, trafficEveryMs)
  timer.unref?.()
  // What it runs said again, as an agent says it: a change its readiness does not cover (its own MariaDB stopped and
  // cannot start again, its port taken) reaches placement, which would otherwise read the start's report for ever.
  const again = setInterval(() => {
    if (stopped) return
    void ready
      .then(report)
      .catch((error: unknown) => context.log.warn({ err: error }, 'the local node’s report not recorded'))
  }, options.reportEveryMs ?? reportEveryMs)
  again.unref?.()
  return async () => {
    stopped = true
    clearInterval(timer)
    clearInterval(again)
    await ready
    await (serving as KeptServing | null)?.stop()
    await stopServices()
  }
}
