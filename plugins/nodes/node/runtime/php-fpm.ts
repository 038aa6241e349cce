// The runtime's own PHP-FPM: its master configuration (including every `pools/*.conf`), one pool per site running
// as the site's user, and its master.

import type { SiteSpec } from '../contract.ts'
import { type ConfiguredMaster, configuredMaster } from './configured-master.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'

/** What PHP-FPM's configuration needs to know. */
export interface PhpFpmSettings {
  readonly binary: string
  readonly layout: RuntimeLayout
  /**
   * The user nginx's workers run as (`www-data`), who alone may connect to the pools' sockets, when the runtime is
   * root; null: pools and sockets are the runtime's user's.
   */
  readonly webUser: string | null
}

/** The name of the pool that keeps PHP-FPM up when no site has one (it refuses to start without a pool). */
export const idlePoolFile = '_idle.conf'

/** `php-fpm.conf`: one master for every site, in the foreground, with its files under the data directory. */
export function phpFpmMainConfig(settings: PhpFpmSettings): string {
  const { php } = settings.layout
  return `; Managed by Plinth's site runtime: rewritten when the runtime starts. Sites' pools are in pools/*.conf.
[global]
pid = "${php.pid}"
error_log = "${php.log}"
daemonize = no
; A reload lets requests under way finish (up to 10 s) before the pools' processes are replaced.
process_control_timeout = 10s

include = "${php.pools}/*.conf"
`
}

/** The pool PHP-FPM needs to start when there is no site: no process until a connection, and none comes. */
export function idlePool(settings: PhpFpmSettings): string {
  const { php } = settings.layout
  return `; Managed by Plinth's site runtime: keeps PHP-FPM up while no site has a pool.
[_idle]
${settings.webUser ? `user = ${settings.webUser}\ngroup = ${settings.webUser}\n` : ''}listen = "${php.run}/_idle.sock"
listen.mode = 0600
pm = ondemand
pm.max_children = 1
`
}

/** What a pool needs besides the site. */
export interface PoolOptions {
  readonly paths: SiteLayout
  /** The site's Unix user, or null to run as the runtime's user. */
  readonly unixUser: string | null
  readonly webUser: string | null
}

/**
 * A site's pool: processes only while requests come (`ondemand`, ending 10 s after the last), as the site's user,
 * confined by `open_basedir` to its home and PHP's shared libraries, with its uploads and sessions in its `tmp/`.
 */
export function poolConfig(site: SiteSpec, options: PoolOptions): string {
  const { paths } = options
  const owner = options.unixUser
    ? [`user = ${options.unixUser}`, `group = ${options.unixUser}`]
    : ['; The runtime is not root: the pool runs as its user.']
  const socketOwner = options.webUser
    ? [`listen.owner = ${options.webUser}`, `listen.group = ${options.webUser}`]
    : []
  return `; Managed by Plinth for site ${site.id} (${site.domain}): rewritten on every change of the site.
[${site.id}]
${[...owner, ...socketOwner].join('\n')}
listen = "${paths.socket}"
listen.mode = 0660
pm = ondemand
pm.max_children = 5
pm.process_idle_timeout = 10s
pm.max_requests = 500
chdir = /
php_admin_value[open_basedir] = "${paths.home}/:/usr/share/php/:${paths.tmp}/"
php_admin_value[upload_tmp_dir] = "${paths.tmp}"
php_admin_value[session.save_path] = "${paths.tmp}"
php_admin_value[sys_temp_dir] = "${paths.tmp}"
php_admin_value[error_log] = "${paths.phpLogs}/error.log"
php_admin_flag[log_errors] = on
php_admin_value[upload_max_filesize] = 64M
php_admin_value[post_max_size] = 64M
; A file changed on disk (by its owner over SFTP, or wp-config.php by the runtime) is what runs next, not a copy
; the opcode cache kept for two more seconds.
php_admin_value[opcache.revalidate_freq] = 0
`
}

/** The runtime's PHP-FPM master: `php-fpm --fpm-config <dataDir>/php/php-fpm.conf`, in the foreground. */
export function createPhpFpm(settings: PhpFpmSettings): ConfiguredMaster {
  const { php } = settings.layout
  const base = [settings.binary, '--fpm-config', php.conf]
  return configuredMaster({
    spec: {
      name: 'PHP-FPM',
      argv: base,
      pidFile: php.pid,
      privateDir: php.run,
      recognise: (cmdline) => cmdline === `php-fpm: master process (${php.conf})`,
      runsAsRuntime: true,
      startupLog: php.startupLog,
      log: php.log,
      ready: /NOTICE: ready to handle connections/,
      failed: /ERROR: FPM initialization failed/,
      reloadSignal: 'SIGUSR2',
      stopSignal: 'SIGQUIT',
    },
    testArgv: [...base, '-t'],
    pendingFile: `${php.dir}/reload-pending`,
    refusedCode: 'php_fpm_config_refused',
  })
}
