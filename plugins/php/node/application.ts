// The `php` and `static` site applications: the site's document root (its spec's `serving.root` under `htdocs/`)
// made as the site's user, and a default index written there once, when the root holds no index of its own; after
// that, never touched again (its files are its owner's).

import { join } from 'node:path'
import { NodeFailure, type SiteApplication } from '../../nodes/node/contract.ts'
import { defaultIndex, defaultIndexName } from './default-index.ts'

/** The stage a site reaches once its root and default index were made. */
const ready = 'ready'

/** Index files whose presence means the owner's files are there: no default index then. */
const indexNames = ['index.php', 'index.html', 'index.htm']

const rootSegment = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/

/** The application of `kind`. */
export function documentRootApplication(kind: 'php' | 'static'): SiteApplication {
  return {
    kind,
    // A PHP site's front controller takes what no file answers (`public/index.php` of a framework).
    ...(kind === 'php' ? { fallback: '/index.php?$query_string' } : {}),
    async probe(programs) {
      if (!programs.nginx) return { missing: ['nginx'] }
      if (kind === 'static') return { version: '1' }
      if (!programs.phpFpm) return { missing: ['php-fpm'] }
      return { version: /php-fpm(\d+\.\d+)$/.exec(programs.phpFpm)?.[1] ?? '1' }
    },
    async apply(site, _settings, stage, record, signal) {
      if (stage === ready) return ready
      const root = site.spec.serving?.root ?? ''
      // Checked by the runtime already (checkSiteSpec); checked again before it names a folder.
      if (root !== '' && !root.split('/').every((part) => rootSegment.test(part)))
        throw new NodeFailure(`Site ${site.id}'s document root is not a safe folder`, 'unsafe_site_spec')
      const dir = root === '' ? site.htdocs : join(site.htdocs, root)
      const made = await site.run(['mkdir', '-p', '--', dir], {}, signal)
      if (made.code !== 0) throw new Error(`Making ${dir} failed (exit ${made.code}): ${made.stderr.trim()}`)
      const listed = await site.run(['ls', '-A', '--', dir], {}, signal)
      if (listed.code !== 0)
        throw new Error(`Listing ${dir} failed (exit ${listed.code}): ${listed.stderr.trim()}`)
      const names = new Set(listed.stdout.split('\n'))
      if (!indexNames.some((name) => names.has(name)))
        await site.writeFile(
          join(dir, defaultIndexName(kind)),
          defaultIndex(kind, site.spec.domain),
          0o644,
          signal,
        )
      await record(ready)
      return ready
    },
  }
}
