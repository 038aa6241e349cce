// WordPress as a site application: Debian's `wordpress` tree copied into the site (links dereferenced: the site
// gets its own copy of what Debian links elsewhere), its own `wp-config.php`, and WordPress's installer run with the
// PHP CLI as the site's user; each stage recorded, so a repeat goes on from the last; once installed, only a new
// domain and new database settings are carried to it.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { NodeFailure, type SiteApplication } from '../../nodes/node/contract.ts'
import { checkedSettings, wordpressKind } from './app-settings.ts'
import { syncCachePurgePlugin } from './cache-purge-plugin.ts'
import { installWordPress, moveWordPress } from './install-scripts.ts'
import { withDatabaseSettings, wpConfig } from './wp-config.ts'

/** Options of {@link wordpressApplication}. */
export interface WordPressApplicationOptions {
  /** Where Debian's WordPress tree is. Default `/usr/share/wordpress`. */
  readonly source?: string
}

/** The stages an installation goes through: files copied, then installed (admin set) and never touched again. */
const copied = 'copied'
const installed = 'installed'

/** The WordPress application, from the tree at `options.source`. */
export function wordpressApplication(options: WordPressApplicationOptions = {}): SiteApplication {
  const source = options.source ?? '/usr/share/wordpress'
  const versionFile = join(source, 'wp-includes', 'version.php')
  return {
    kind: wordpressKind,
    fallback: '/index.php?$args',
    // Its database server, wherever it is: the node lets the site through to it when it is on the node's own
    // addresses (a server on the panel's machine).
    reaches(settings) {
      const { host, port } = checkedSettings(settings).database
      return [{ host, port }]
    },
    async probe(programs) {
      const missing = [
        ...(existsSync(versionFile) ? [] : ['Debian’s wordpress package']),
        ...(programs.php ? [] : ['the PHP CLI (php-cli)']),
      ]
      if (missing.length > 0) return { missing }
      const version = /\$wp_version\s*=\s*'([^']+)'/.exec(readFileSync(versionFile, 'utf8'))?.[1]
      return { version: version ?? 'unknown' }
    },
    async apply(site, given, stage, record, signal) {
      const php = site.programs.php
      if (!php || !existsSync(versionFile))
        throw new NodeFailure(
          `Site ${site.id} runs WordPress, which needs Debian's wordpress package and the PHP CLI on the node`,
          'wordpress_unavailable',
        )
      const settings = given === undefined ? undefined : checkedSettings(given)
      const config = join(site.htdocs, 'wp-config.php')
      if (stage === installed) {
        if (site.previousDomain !== null) await moveWordPress(site, php, signal)
        // A repeated provisioning carries the database password its attempt set.
        const current = settings ? await site.readFile(config, 1_048_576) : null
        const updated = current && settings ? withDatabaseSettings(current, settings.database) : null
        if (updated !== null && updated !== current) await site.writeFile(config, updated, 0o640, signal)
        await syncCachePurgePlugin(site, signal)
        return installed
      }
      if (!settings)
        throw new NodeFailure(
          `WordPress is not installed in site ${site.id} yet, and its spec lacks its settings`,
          'wordpress_settings_missing',
        )
      if (stage !== copied) {
        const copy = await site.run(['cp', '-rL', `${source}/.`, `${site.htdocs}/`], {}, signal)
        if (copy.code !== 0)
          throw new Error(`Copying WordPress failed (exit ${copy.code}): ${copy.stderr.trim()}`)
        await record(copied)
      }
      await site.writeFile(config, wpConfig(site.id, site.spec.domain, settings), 0o640, signal)
      await installWordPress(site, php, settings, signal)
      await syncCachePurgePlugin(site, signal)
      await record(installed)
      return installed
    },
  }
}
