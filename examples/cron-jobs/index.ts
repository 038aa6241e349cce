// Scheduled tasks under a site: a third-party plugin written only against the public contracts (the kernel's, and
// the sites plugin's directory and dependents), the recipe of docs/plugin-authors.md. Its columns are named as
// the API's fields, so a row is a task as the API shows it.

import {
  type Db,
  defineFormat,
  definePlugin,
  defineProblems,
  newId,
  nonBlankText,
  nowIso,
  type PluginContext,
  Problem,
  resourceEvents,
  resourceRoutes,
  type Static,
  sql,
  t,
  visibleTable,
} from '../../core/index.ts'
import { siteDependents, siteDirectory } from '../../plugins/sites/contract.ts'
import { isSchedule } from './schedule.ts'

export const CronJob = t.Object(
  {
    id: t.String({ description: 'Identifier, `cron_…`.' }),
    siteId: t.String({ description: 'The site it runs for, `site_…`.' }),
    customerId: t.String({ description: 'The site’s customer, `cus_…`.' }),
    schedule: t.String({ description: 'When it runs: five cron fields, or `@daily`, `@hourly`, ….' }),
    command: t.String({ description: 'What runs, as the site’s user, in its home directory.' }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'CronJob' },
)
const cron = (db: Db) => db.withTables<{ cron_jobs: Static<typeof CronJob> }>()
/** Tasks as callers' views reach them: those of the customers in the view. */
const cronJobs = visibleTable(cron, 'cron_jobs', { customerColumn: 'customerId' })

export const cronProblems = defineProblems({
  invalid_schedule: {
    status: 422,
    detail: 'The schedule is not a cron schedule.',
    description: '`schedule` must be five cron fields (minute hour day month weekday) or `@daily`, ….',
  },
  site_unavailable: {
    status: 409,
    detail: 'Tasks are added only to an active or suspended site.',
    description: 'The site is `provisioning`, `failed` or `deleting`: wait for it, or choose another.',
  },
})

const Schedule = defineFormat({ name: 'cron', check: isSchedule, problem: cronProblems.invalid_schedule })
const Create = t.Object({
  schedule: Schedule({ maxLength: 100, description: 'Five cron fields, or `@daily`, `@hourly`, ….' }),
  command: nonBlankText({ maxLength: 1000, description: 'What runs, as the site’s user.' }),
})
const roles = ['owner', 'admin', 'developer'] as const

/** Scheduled tasks of sites: `cron:read` and `cron:manage`, held by owners, admins and developers. */
export const cronJobsPlugin = () =>
  definePlugin({
    name: 'cron-jobs',
    version: '1.0.0',
    description: 'Scheduled tasks of sites.',
    requires: ['sites'],
    scopes: [
      { name: 'cron:read', description: 'Read scheduled tasks', roles },
      { name: 'cron:manage', description: 'Change scheduled tasks', roles },
    ],
    events: resourceEvents('cron', CronJob, 'A scheduled task'),
    problems: cronProblems,
    migrations: [
      {
        id: '0001_cron_jobs',
        async up(db) {
          let table = db.schema.createTable('cron_jobs').addColumn('id', 'text', (c) => c.primaryKey())
          for (const column of ['siteId', 'customerId', 'schedule', 'command', 'createdAt', 'updatedAt'])
            table = table.addColumn(column, 'text', (c) => c.notNull())
          await table.execute()
          await sql`create index cron_jobs_site_idx on cron_jobs ("siteId", id)`.execute(db)
        },
      },
    ],
    setup(context) {
      // A deleted site takes its tasks with it, in its deletion job.
      context.extensionPoint(siteDependents).add({
        name: 'cron-jobs',
        async remove(run, site) {
          await run.transaction((trx) =>
            cron(trx).deleteFrom('cron_jobs').where('siteId', '=', site.id).execute(),
          )
        },
      })
    },
    routes: cronRoutes,
  })

function cronRoutes({ use }: PluginContext) {
  const sites = use(siteDirectory)
  return resourceRoutes({
    item: CronJob,
    name: 'cron',
    path: '/sites/:id/cron-jobs',
    params: { id: 'site' },
    key: { cronJobId: 'cron' },
    scopes: { read: 'cron:read', manage: 'cron:manage' },
    parent: (db, view, params) => sites.find(db, view, params.id),
    table: { rows: cronJobs, parentColumn: 'siteId' },
    list: {},
    read: {},
    create: {
      body: Create,
      problems: [cronProblems.site_unavailable],
      async handler({ trx, parent: site, body }) {
        if (site.status !== 'active' && site.status !== 'suspended')
          throw new Problem(cronProblems.site_unavailable)
        const at = nowIso()
        const row = { ...body, id: newId('cron'), siteId: site.id, customerId: site.customerId }
        await cron(trx)
          .insertInto('cron_jobs')
          .values({ ...row, createdAt: at, updatedAt: at })
          .execute()
        return { ...row, createdAt: at, updatedAt: at }
      },
    },
    update: {
      body: t.Partial(Create),
      async handler({ trx, row, body }) {
        const changed = { ...row, ...body, updatedAt: nowIso() }
        await cron(trx).updateTable('cron_jobs').set(changed).where('id', '=', changed.id).execute()
        return changed
      },
    },
    async remove({ trx, row }) {
      await cron(trx).deleteFrom('cron_jobs').where('id', '=', row.id).execute()
      return row
    },
  })
}
