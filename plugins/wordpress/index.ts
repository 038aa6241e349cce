// The wordpress plugin: the `wordpress` site type. Creating one keeps its administrator (the password shown once,
// only its hash kept until the install); provisioning makes the site's MariaDB database and login through the
// databases plugin, and has the node install Debian's WordPress into the site with them. WordPress operations on a
// site (`site:shell`: core, plugins, themes, users, maintenance, search-replace) run on its node through the
// `wordpress` node service (node/service.ts), which this plugin adds to the local node.

import { randomBytes } from 'node:crypto'
import {
  definePlugin,
  fieldProblem,
  JobAttemptFailure,
  JobFailure,
  type JobRun,
  nowIso,
  type PluginContext,
  t,
} from '../../core/index.ts'
import { restoreAdapters } from '../backups/contract.ts'
import { addConsolePages } from '../console/contract.ts'
import { siteDatabases } from '../databases/contract.ts'
import { nodeDirectory, nodeModules } from '../nodes/contract.ts'
import { type CreatedSite, type SiteType, siteDependents, siteTypes } from '../sites/contract.ts'
import { adminPasswordHash, generateAdminPassword, isStrongAdminPassword } from './admin-password.ts'
import { type WordPressTables, wordpressMigrations } from './migrations.ts'
import { type WordPressAppSettings, wordpressKind } from './node/app-settings.ts'
import wordpressNodeModule from './node/index.ts'
import { wordpressProblems } from './problems.ts'
import { wordpressRestoreAdapter } from './restore-adapter.ts'
import { coreRoutes } from './routes/core.ts'
import { extensionsRoutes } from './routes/extensions.ts'
import { userRoutes } from './routes/users.ts'

const WordPressOptions = t.Object(
  {
    adminUser: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 60,
        pattern: '^[A-Za-z0-9_.@-]+$',
        description: 'The administrator’s login name (default `admin`).',
      }),
    ),
    adminEmail: t.Optional(
      t.String({
        format: 'email',
        maxLength: 100,
        description: 'The administrator’s e-mail (default `admin@<domain>`).',
      }),
    ),
    adminPassword: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 72,
        description:
          'The administrator’s password: 12 to 72 printable ASCII characters, not all of one kind (422 `weak_admin_password`). Left out, the panel generates one and shows it once in the answer.',
      }),
    ),
  },
  { description: 'The WordPress administrator the install creates (`type: "wordpress"` only).' },
)

const WordPressAnswer = t.Object(
  {
    adminUser: t.String({ description: 'The administrator’s login name.' }),
    adminPassword: t.Optional(
      t.String({
        description: 'The generated password, shown this once; absent when the client gave its own.',
      }),
    ),
  },
  { description: 'The WordPress administrator (`type: "wordpress"`).' },
)

/** How long provisioning waits for the site's database and login to be made on the server. */
const databaseWaitMs = 120_000

/** WordPress sites on nodes with nginx, PHP-FPM and Debian's `wordpress`, their databases on MariaDB. */
/** The plugin's node module (WordPress installed into sites, the `wordpress` service), for nodes a test makes. */
export { wordpressNodeModule }

export const wordpressPlugin = () =>
  definePlugin({
    name: 'wordpress',
    version: '0.1.0',
    description:
      'WordPress sites: Debian’s WordPress installed into the site, on a MariaDB database of its own.',
    requires: ['sites', 'databases', 'nodes'],
    // Its console pages, when the installation has a console; what a clone of a site's backup keeps and does, when it
    // has backups.
    enhances: ['console', 'backups'],
    problems: wordpressProblems,
    migrations: wordpressMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context.extensionPoint(siteTypes).add(wordpressSiteType(context))
      // The application and the operations on a site, run by the local node in process and by every agent.
      context.extensionPoint(nodeModules).add({ module: wordpressNodeModule })
      // A backup restored into a new WordPress site keeps the new site's wp-config.php and moves the addresses.
      context.extensionPoint(restoreAdapters).add(wordpressRestoreAdapter(context))
      // A deleted site's administrator record goes with it (its database goes with the databases plugin).
      context.extensionPoint(siteDependents).add({
        name: 'wordpress',
        remove: (run, site) =>
          run.transaction(async (trx) => {
            await trx
              .withTables<WordPressTables>()
              .deleteFrom('wordpress_sites')
              .where('site_id', '=', site.id)
              .execute()
          }),
      })
    },
    routes: (context) => [...coreRoutes(context), ...extensionsRoutes(context), ...userRoutes(context)],
  })

function wordpressSiteType(context: PluginContext): SiteType {
  const sites = (db: PluginContext['db']) => db.withTables<WordPressTables>()
  const databases = () => context.use(siteDatabases)
  const nodes = () => context.use(nodeDirectory)

  /**
   * Waits while the site's node says its own database server is being made (its first start takes seconds): the
   * site's database goes there once the node says it runs, rather than failing this attempt for a moment's gap.
   */
  async function untilNodeDatabaseMade(job: JobRun, site: CreatedSite): Promise<void> {
    const deadline = Date.now() + databaseWaitMs
    for (;;) {
      const node = site.nodeId ? await nodes().find(site.nodeId) : null
      const database = node?.agent.capabilities?.services.database as { starting?: boolean } | undefined
      if (database?.starting !== true || Date.now() > deadline) return
      job.signal.throwIfAborted()
      await Bun.sleep(250)
    }
  }

  /** The site's database and login made and ready, with a password this attempt set (for wp-config.php). */
  async function databaseFor(job: JobRun, site: CreatedSite): Promise<WordPressAppSettings['database']> {
    const password = randomBytes(24).toString('base64url')
    await untilNodeDatabaseMade(job, site)
    const ids = await job.transaction(async (trx) => {
      const made = await databases().ensure(trx, {
        customerId: site.customerId,
        siteId: site.id,
        // On the site's node's own server when it runs one.
        nodeId: site.nodeId,
        // Unique per site, inside the chosen-name rules: `wp_` and the tail of the site's id.
        name: `wp_${site.id.slice(-10).toLowerCase()}`,
        engine: 'mariadb',
      })
      await databases().setPassword(trx, made.userId, password)
      await sites(trx)
        .updateTable('wordpress_sites')
        .set({ database_id: made.databaseId, database_user_id: made.userId })
        .where('site_id', '=', site.id)
        .execute()
      return { databaseId: made.databaseId, userId: made.userId }
    })
    const deadline = Date.now() + databaseWaitMs
    for (;;) {
      job.signal.throwIfAborted()
      const state = await databases().find(context.db, ids)
      if (!state)
        throw new JobAttemptFailure(
          'The site’s database was deleted while it was being made',
          'database_failed',
        )
      if (state.failed)
        throw new JobFailure(
          `The site’s database ${state.name} could not be made on its server (see its job)`,
          'database_failed',
        )
      if (state.ready)
        return { host: state.host, port: state.port, name: state.name, user: state.username, password }
      // Its server refused an attempt: this attempt ends saying why (on the site), and the next looks again.
      if (state.trouble)
        throw new JobAttemptFailure(
          `The site’s database ${state.name} cannot be made yet: ${state.trouble.message} (${state.trouble.code})`,
          'database_not_ready',
        )
      if (Date.now() > deadline)
        throw new JobAttemptFailure(
          `The site’s database ${state.name} was not ready within two minutes`,
          'database_not_ready',
        )
      await Bun.sleep(100)
    }
  }

  return {
    name: 'wordpress',
    description:
      'A WordPress site: Debian’s WordPress on nginx and PHP-FPM, with a MariaDB database of its own.',
    requires: ['nginx', 'php', 'wordpress', 'mariadb'],
    createOptions: {
      field: 'wordpress',
      schema: WordPressOptions,
      answer: WordPressAnswer,
      problems: [wordpressProblems.weak_admin_password],
    },
    async created(trx, site, given) {
      const options = (given ?? {}) as { adminUser?: string; adminEmail?: string; adminPassword?: string }
      if (options.adminPassword !== undefined && !isStrongAdminPassword(options.adminPassword))
        throw fieldProblem(wordpressProblems.weak_admin_password, 'body.wordpress.adminPassword')
      const password = options.adminPassword ?? generateAdminPassword()
      const adminUser = options.adminUser ?? 'admin'
      await sites(trx)
        .insertInto('wordpress_sites')
        .values({
          site_id: site.id,
          admin_user: adminUser,
          admin_email: options.adminEmail ?? `admin@${site.domain}`,
          admin_hash_sealed: context.secrets.seal(await adminPasswordHash(password)),
          database_id: null,
          database_user_id: null,
          created_at: nowIso(),
        })
        .execute()
      return options.adminPassword === undefined ? { adminUser, adminPassword: password } : { adminUser }
    },
    async lacksOn(db, node) {
      const capabilities = node.agent.capabilities
      // A node that never said what it runs is ready only as the panel's own node laying out files (placement
      // refuses the others before asking): it takes WordPress sites as placeholder pages, by the operator's choice.
      if (!capabilities) return []
      const serving = capabilities.missing.filter((lack) => lack.for === 'serving sites')
      // A node that lays out files only by its operator's choice (LOCAL_SITES=files) takes WordPress sites as
      // placeholder pages; one that would serve but lacks nginx or PHP-FPM does not.
      if (capabilities.mode === 'files-only' && serving.length === 0) return []
      const lacks: string[] = []
      if (!capabilities.applications[wordpressKind]) {
        const named = capabilities.missing.filter(
          (lack) => lack.for === 'serving sites' || lack.for === 'wordpress sites',
        )
        lacks.push(...(named.length > 0 ? named.map((lack) => lack.what) : ['WordPress']))
      }
      const own = capabilities.services.database as
        | { starting?: boolean; running?: boolean; reason?: string }
        | undefined
      // The node's own server being made (its first start takes seconds) will take the site's database.
      const starting = own?.starting === true
      // One the node says does not run (its port taken by another program, say) would take it too, and the site's
      // job would fail, again and again, until it runs: refused now, saying why. (Were staff to have disabled it for
      // a central server, the node would not be asked to run it.)
      if (!starting && own?.running === false && own.reason) lacks.push(`a running MariaDB (${own.reason})`)
      else if (!starting && !(await databases().canPlace(db, 'mariadb', node.id))) {
        // Said as it is: a node without its own server lacks a program; one whose server runs has no room on it.
        const programs = capabilities.missing.filter(
          (lack) => lack.for === 'a database server of the node’s own',
        )
        lacks.push(
          own?.running !== true || programs.length > 0
            ? `a MariaDB server its sites reach (${programs.map((lack) => lack.what).join(', ') || 'mariadb-server'} on the node, or one staff add with POST /database-servers at an address the node reaches: one at 127.0.0.1 serves only the panel’s own machine)`
            : 'room for a database: the node’s own MariaDB server is disabled or full (staff enable it or raise its capacity with PATCH /database-servers/{id}, or add one with POST /database-servers)',
        )
      }
      return lacks
    },
    async app(job, site) {
      const node = site.nodeId ? await nodes().find(site.nodeId) : null
      const capabilities = node?.agent.capabilities ?? null
      if (!capabilities?.applications[wordpressKind]) {
        // A node that lays out files only by its operator's choice (LOCAL_SITES=files, said so in its `mode`) gets
        // the placeholder page; any other never does: a WordPress site without WordPress would read `active` with
        // no database and a password that opens nothing.
        const filesOnlyByChoice =
          node !== null &&
          (capabilities === null
            ? node.driver === 'local' && node.ready
            : capabilities.mode === 'files-only' &&
              !capabilities.missing.some((lack) => lack.for === 'serving sites'))
        if (filesOnlyByChoice) return undefined
        throw new JobFailure(
          // Said on the site, which its customer reads: the node's name is the provider's (sites.md, who learns).
          `The site's node cannot install WordPress now${capabilities ? ` (it lacks ${capabilities.missing.map((lack) => lack.what).join(', ') || 'WordPress'}; \`${capabilities.setup}\` installs it)` : ' (it has not said what it runs)'}: the site is not made a placeholder. Retry once the node serves WordPress.`,
          'wordpress_unavailable',
        )
      }
      const row = await sites(context.db)
        .selectFrom('wordpress_sites')
        .selectAll()
        .where('site_id', '=', site.id)
        .executeTakeFirst()
      if (!row) throw new Error(`The WordPress site ${site.id} has no administrator recorded`)
      const database = await databaseFor(job, site)
      // Installed already (the hash was dropped then): the node keeps the administrator it has, in its files or,
      // provisioned again into an empty home (reconciliation of a rebuilt node), in its database.
      const passwordHash = row.admin_hash_sealed ? context.secrets.open(row.admin_hash_sealed) : null
      const settings: WordPressAppSettings = {
        title: site.name,
        database,
        admin: { user: row.admin_user, email: row.admin_email, passwordHash },
      }
      return { kind: wordpressKind, settings: { ...settings } }
    },
    async provisioned(trx, site) {
      await sites(trx)
        .updateTable('wordpress_sites')
        .set({ admin_hash_sealed: null })
        .where('site_id', '=', site.id)
        .execute()
    },
  }
}
