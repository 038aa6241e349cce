// The plugins of a standard installation, as `npm start` mounts them when PLINTH_CONFIG says nothing else.

import type { PluginDefinition } from '../core/host.ts'
import { backupsPlugin } from '../plugins/backups/index.ts'
import { billingPlugin } from '../plugins/billing/index.ts'
import { brandsPlugin } from '../plugins/brands/index.ts'
import { cachePlugin } from '../plugins/cache/index.ts'
import { certificatesPlugin, letsEncryptDirectory } from '../plugins/certificates/index.ts'
import { consolePlugin } from '../plugins/console/index.ts'
import { cronPlugin } from '../plugins/cron/index.ts'
import { customersPlugin } from '../plugins/customers/index.ts'
import { databasesPlugin } from '../plugins/databases/index.ts'
import { filesPlugin } from '../plugins/files/index.ts'
import { logsPlugin } from '../plugins/logs/index.ts'
import { nodesPlugin } from '../plugins/nodes/index.ts'
import { phpPlugin } from '../plugins/php/index.ts'
import { redirectsPlugin } from '../plugins/redirects/index.ts'
import { sftpPlugin } from '../plugins/sftp/index.ts'
import { shellPlugin } from '../plugins/shell/index.ts'
import { sitesPlugin } from '../plugins/sites/index.ts'
import { stagingPlugin } from '../plugins/staging/index.ts'
import { webhooksPlugin } from '../plugins/webhooks/index.ts'
import { wordpressPlugin } from '../plugins/wordpress/index.ts'
import type { StandardSettings } from './settings.ts'

/**
 * The standard plugins: brands, customers, nodes (with the local node under `dataDir`), sites, databases, WordPress,
 * certificates (ACME at `acmeDirectoryUrl`, Let's Encrypt when unset, off when null), backups, cron, billing (checkout `open` unless `billingCheckout` says otherwise) and webhooks (to the internet, and
 * `webhookAllowedHosts`).
 */
export function standardPlugins(
  settings: Pick<StandardSettings, 'dataDir' | 'webhookAllowedHosts'> &
    Partial<
      Pick<
        StandardSettings,
        | 'billingCheckout'
        | 'localSites'
        | 'sitesDataDir'
        | 'sitesHttpPort'
        | 'sitesHttpsPort'
        | 'acmeDirectoryUrl'
        | 'acmeEmail'
        | 'acmeCaPem'
        | 'sftpPort'
        | 'sftpListen'
        | 'stagingDomain'
        | 'nodeDatabasePort'
        | 'uploadLimitBytes'
        | 'shellIdleSeconds'
        | 'shellSessionsPerSite'
        | 'shellAllowedOrigins'
        | 'publicUrl'
      >
    >,
): PluginDefinition[] {
  // The local node serves its sites when the settings say so (`npm start` does by default); test panels do not.
  const localServing =
    settings.localSites === 'serve' && settings.sitesDataDir
      ? {
          dataDir: settings.sitesDataDir,
          httpPort: settings.sitesHttpPort ?? 80,
          httpsPort: settings.sitesHttpsPort ?? 443,
        }
      : undefined
  return [
    brandsPlugin(),
    customersPlugin(),
    nodesPlugin({ dataDir: settings.dataDir, ...(localServing ? { localServing } : {}) }),
    // WordPress comes from its own plugin, which installs it with a database of the site's own.
    // No site takes the panel's own host name (PUBLIC_URL's), nor a brand's.
    sitesPlugin({
      wordpress: false,
      panelHostnames: hostnamesOf(settings.publicUrl),
      // A staging domain's names are staging copies' only.
      pluginDomains: settings.stagingDomain ? [settings.stagingDomain] : [],
    }),
    // The local node runs a MariaDB of its own for its sites when it serves them.
    databasesPlugin({ nodeDatabasePort: localServing ? (settings.nodeDatabasePort ?? null) : null }),
    filesPlugin(settings.uploadLimitBytes ? { uploadLimitBytes: settings.uploadLimitBytes } : {}),
    wordpressPlugin(),
    // `php` and `static` sites, and every PHP site's version and settings.
    phpPlugin(),
    // SFTP accounts; the local node's SSH server runs only when SFTP_PORT is set.
    sftpPlugin({
      ...(settings.sftpPort == null ? {} : { port: settings.sftpPort }),
      ...(settings.sftpListen ? { listen: settings.sftpListen } : {}),
    }),
    // Commands and shells in sites, confined with bubblewrap on the site's node.
    shellPlugin({
      ...(settings.shellIdleSeconds ? { idleTimeoutMs: settings.shellIdleSeconds * 1000 } : {}),
      ...(settings.shellSessionsPerSite ? { sessionsPerSite: settings.shellSessionsPerSite } : {}),
      ...(settings.shellAllowedOrigins ? { allowedOrigins: settings.shellAllowedOrigins } : {}),
    }),
    // A page cache per site, purged on demand and when WordPress content changes.
    cachePlugin(),
    certificatesPlugin({ acme: acmeOf(settings) }),
    // Sites' access, error and PHP logs, read and followed on their nodes.
    logsPlugin(),
    // Redirects and response headers of sites, rendered into their server blocks.
    redirectsPlugin(),
    // Sites' backups with restic, to targets staff add.
    backupsPlugin(),
    // Staging copies of sites and their push to live, made through backups.
    stagingPlugin({ domain: settings.stagingDomain ?? null }),
    // Sites' cron jobs, run on their nodes as the sites' users.
    cronPlugin(),
    billingPlugin({ checkout: settings.billingCheckout ?? 'open' }),
    webhooksPlugin({ allowedHosts: settings.webhookAllowedHosts }),
    // The web console at `/`, on the API above.
    consolePlugin(),
  ]
}

/** The host name of the panel's public URL (lower case, no trailing dot), or none. */
function hostnamesOf(publicUrl: string | null | undefined): string[] {
  if (!publicUrl) return []
  return [new URL(publicUrl).hostname.toLowerCase().replace(/\.$/, '')]
}

/** The certificates plugin's ACME settings: Let's Encrypt unless the settings name another directory, or none. */
function acmeOf(settings: Partial<Pick<StandardSettings, 'acmeDirectoryUrl' | 'acmeEmail' | 'acmeCaPem'>>) {
  if (settings.acmeDirectoryUrl === null) return false
  return {
    directoryUrl: settings.acmeDirectoryUrl ?? letsEncryptDirectory,
    ...(settings.acmeEmail ? { email: settings.acmeEmail } : {}),
    ...(settings.acmeCaPem ? { trustedCaPem: settings.acmeCaPem } : {}),
  }
}
