// What a restore of a WordPress site's backup into a new WordPress site (a clone) keeps and does, for the backups
// plugin: the clone keeps its own wp-config.php (which names its own database and login, and its own salts), the
// old site's WordPress database is loaded into the clone's, and WordPress's addresses in it move from the old domain
// to the new with the plugin's own search-replace, run on the clone's node as any WordPress operation.

import { JobAttemptFailure, JobFailure, type JobRun, type PluginContext } from '../../core/index.ts'
import type { ClonedSite, RestoreAdapter } from '../backups/contract.ts'
import { NodeRefusal, nodeDirectory } from '../nodes/contract.ts'
import type { WordPressTables } from './migrations.ts'
import type { SearchEnginesResult, SearchReplaceResult, WordPressOperation } from './protocol.ts'
import { callWordPress } from './site-wordpress.ts'

/** The file that names a WordPress site's database: the clone's own, never the backup's. */
const wpConfig = '/htdocs/wp-config.php'

/** WordPress's restore adapter. */
export function wordpressRestoreAdapter(context: PluginContext): RestoreAdapter {
  const sites = () => context.db.withTables<WordPressTables>()

  async function databaseOf(siteId: string): Promise<string | null | undefined> {
    const row = await sites()
      .selectFrom('wordpress_sites')
      .select('database_id')
      .where('site_id', '=', siteId)
      .executeTakeFirst()
    return row?.database_id
  }

  return {
    type: 'wordpress',
    keepOnClone: [wpConfig],

    async databaseFor(_job, from, to, sourceDatabaseId) {
      // Only the old site's own WordPress database has a counterpart: others it was given are not the clone's.
      if ((await databaseOf(from.id)) !== sourceDatabaseId) return null
      const target = await databaseOf(to.id)
      if (target === undefined)
        throw new JobFailure(`The site ${to.id} is not a WordPress site`, 'not_a_wordpress_site')
      // Made by the clone's provisioning: loading nothing instead would leave the clone empty.
      if (target === null)
        throw new JobAttemptFailure(
          `The WordPress database of the site ${to.domain} is not made yet`,
          'database_not_ready',
        )
      return target
    },

    async cloned(job, from, to) {
      if (from.domain === to.domain) return
      for (const scheme of ['http', 'https'] as const)
        await searchReplace(job, to, `${scheme}://${from.domain}`, `${scheme}://${to.domain}`, from)
    },

    // A site pushed to keeps whether search engines index it (a staging copy's tables say they must not).
    async beforeCopy(job, into, purpose) {
      if (purpose !== 'push') return null
      return ((await call(job, into, { op: 'search-engines', visible: null })) as SearchEnginesResult).visible
    },

    // A staging copy is hidden from search engines (WordPress's own setting: `noindex` on its pages, robots.txt
    // closed); a pushed site is given back its own setting.
    async copied(job, _from, into, purpose, before) {
      const visible = purpose === 'staging' ? false : typeof before === 'boolean' ? before : null
      if (visible !== null) await call(job, into, { op: 'search-engines', visible })
    },
  }

  /** One WordPress operation on `site`'s node, the node's refusal failing the job. */
  async function call(job: JobRun, site: ClonedSite, operation: WordPressOperation): Promise<unknown> {
    const nodes = context.use(nodeDirectory)
    const node = site.nodeId ? await nodes.find(site.nodeId) : null
    if (!node) throw new JobFailure(`The site ${site.domain} has no node`, 'node_missing')
    try {
      return await callWordPress(nodes, node, site, operation, job.signal)
    } catch (error) {
      if (error instanceof NodeRefusal)
        throw new JobFailure(`WordPress refused: ${error.message}`, error.code)
      throw error
    }
  }

  /** Replaces `oldUrl` by `newUrl` in the WordPress of `site`, audited as the route's search-replace is. */
  async function searchReplace(
    job: JobRun,
    site: ClonedSite,
    oldUrl: string,
    newUrl: string,
    from: ClonedSite,
  ): Promise<void> {
    const nodes = context.use(nodeDirectory)
    const node = site.nodeId ? await nodes.find(site.nodeId) : null
    if (!node) throw new JobFailure(`The site ${site.domain} has no node`, 'node_missing')
    let answer: SearchReplaceResult
    try {
      answer = (await callWordPress(
        nodes,
        node,
        site,
        { op: 'search-replace', from: oldUrl, to: newUrl, dryRun: false },
        job.signal,
      )) as SearchReplaceResult
    } catch (error) {
      // The node's word on it (WordPress missing, a failed update) is for the job; anything else is tried again.
      if (error instanceof NodeRefusal)
        throw new JobFailure(`WordPress’s addresses could not be moved: ${error.message}`, error.code)
      throw error
    }
    await job.transaction((trx) =>
      job.audit(trx, {
        action: 'wordpress.search_replace',
        subject: { type: 'site', id: site.id },
        customerId: site.customerId,
        details: {
          from: oldUrl,
          to: newUrl,
          dryRun: false,
          replacements: answer.replacements,
          reason: 'restored into a new site',
          sourceSiteId: from.id,
        },
      }),
    )
  }
}
