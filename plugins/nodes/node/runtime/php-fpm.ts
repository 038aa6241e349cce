// A PHP-FPM master per site: its configuration (the master's and its one pool's, in one file), run as the site's
// user in the site's sandbox (php-sandbox.ts) and, where the node has them, its cgroups, so a change to one site
// reloads that site's master alone, each site's OPcache is its own, and its workers start in its cgroup. Also the one
// master every site shared before, known only so a node that ran it moves its sites off it (php-upgrade.ts).

import { readdirSync } from 'node:fs'
import type { SiteSpec } from '../contract.ts'
import { type ConfiguredMaster, configuredMaster } from './configured-master.ts'
import type { RuntimeLayout, SiteLayout } from './layout.ts'
import { childrenOf, descendantsOf, type MasterSpec, processInfo, runtimeUser, uidOf } from './masters.ts'
import { sandboxedMaster } from './php-sandbox.ts'
import { phpSettingLines } from './php-settings.ts'
import { versionLine } from './php-versions.ts'
import type { UnixUser } from './unix-users.ts'

/**
 * How any PHP-FPM master says it is ready or failed to reload, and the signals it reloads (gracefully, its workers
 * finishing their requests) and stops by: the same for a site's master and the shared one.
 */
const phpFpmSignals = {
  ready: /NOTICE: ready to handle connections/,
  failed: /ERROR: FPM initialization failed/,
  reloadSignal: 'SIGUSR2',
  stopSignal: 'SIGQUIT',
} as const satisfies Pick<MasterSpec, 'ready' | 'failed' | 'reloadSignal' | 'stopSignal'>

/** A command line entering the site's cgroups before it runs `argv` (the identity where the node has none). */
export type EnterSiteGroups = (siteId: string, argv: readonly string[]) => string[]

/** What PHP-FPM's configuration needs to know. */
export interface PhpFpmSettings {
  readonly binary: string
  readonly layout: RuntimeLayout
  /** The user nginx's workers run as (`www-data`) when the runtime is root; null: the runtime's user. */
  readonly webUser: string | null
  readonly enter: EnterSiteGroups
}

/**
 * Functions a site's PHP may not call unless its plan allows them (`SiteSpec.allowFunctions`). Not a wall (the site
 * runs its own commands through exec jobs and its shell, in its sandbox and cgroups like its PHP): they keep a
 * vulnerable plugin's injected code from starting programs, signalling or re-parenting processes and changing its
 * credentials or limits, which is what the common web shells do first, and what WordPress never needs.
 * - programs: exec, passthru, shell_exec, system, proc_open, popen (and the proc_* that only serve proc_open);
 * - `putenv`: with `mail()` (which runs sendmail) an `LD_PRELOAD` loads the attacker's library, the classic way
 *   around this very list;
 * - pcntl_*: forks, signals and exec from a web request, which FPM's workers are not made for;
 * - posix_*: killing, new sessions and groups (escaping its master's process group), credentials and limits;
 * - `dl`: loading an extension of the site's own; `proc_nice`; `link` (hard links into other owners' files).
 */
export const disabledFunctions: readonly string[] = [
  'exec',
  'passthru',
  'shell_exec',
  'system',
  'proc_open',
  'proc_close',
  'proc_get_status',
  'proc_terminate',
  'proc_nice',
  'popen',
  'putenv',
  'dl',
  'link',
  'pcntl_alarm',
  'pcntl_async_signals',
  'pcntl_exec',
  'pcntl_fork',
  'pcntl_rfork',
  'pcntl_get_last_error',
  'pcntl_getpriority',
  'pcntl_setpriority',
  'pcntl_signal',
  'pcntl_signal_dispatch',
  'pcntl_signal_get_handler',
  'pcntl_sigprocmask',
  'pcntl_sigtimedwait',
  'pcntl_sigwaitinfo',
  'pcntl_strerror',
  'pcntl_unshare',
  'pcntl_wait',
  'pcntl_waitpid',
  'pcntl_wexitstatus',
  'pcntl_wifexited',
  'pcntl_wifsignaled',
  'pcntl_wifstopped',
  'pcntl_wstopsig',
  'pcntl_wtermsig',
  'posix_kill',
  'posix_mkfifo',
  'posix_setegid',
  'posix_seteuid',
  'posix_setgid',
  'posix_setpgid',
  'posix_setrlimit',
  'posix_setsid',
  'posix_setuid',
]

/** The functions disabled for `site`: the defaults minus what its plan allows. */
export function disabledFor(site: Pick<SiteSpec, 'allowFunctions'>): string[] {
  const allowed = new Set(site.allowFunctions ?? [])
  return disabledFunctions.filter((name) => !allowed.has(name))
}

/**
 * OPcache per master, sized for one site: a WordPress 6 front page caches 347 scripts in 16 MB and 3 MB of interned
 * strings (measured, bench/node-capacity.ts); its admin and a dozen plugins fit in the rest. Its shared memory is
 * charged (to the site's memory group) as it fills, so the size is a ceiling, not a cost, except the interned
 * strings' table, touched at start (about 1 MiB of each master's 8.6 MiB idle); a site that outgrows it is served
 * uncached past it, not failed. Set on the master's command line: OPcache allocates its memory when the master
 * starts, before any pool's values. No `opcache.restrict_api`: the cache is the site's alone, its own code may as
 * well reset it.
 */
const opcacheArgs = [
  '-d',
  'opcache.memory_consumption=48',
  '-d',
  'opcache.interned_strings_buffer=8',
  '-d',
  'opcache.max_accelerated_files=10000',
]

/** What a site's PHP-FPM configuration needs besides the site. */
export interface SiteFpmOptions {
  readonly paths: SiteLayout
  /** The PHP version its master runs, recorded in the file (the watch starts the same again); absent: not recorded. */
  readonly version?: string | null
}

/**
 * A site's `php-fpm.conf`: its master (in the foreground, its log root's file, no core dump) and its one pool,
 * processes only while requests come (`ondemand`, ending 10 s after the last), confined by `open_basedir` to its
 * home and PHP's shared libraries, with its uploads and sessions in its `tmp/`. No `user`: the master already runs
 * as the site's user, in its sandbox. The socket is open to every user (0666): its folder is what keeps it to
 * nginx's workers and the site (`<user>:www-data 0750`), as a master that is not root cannot give it to www-data.
 */
export function siteFpmConfig(site: SiteSpec, options: SiteFpmOptions): string {
  const { paths } = options
  const version = options.version ? `${versionLine(options.version)}\n` : ''
  return `; Managed by Plinth for site ${site.id} (${site.domain}): rewritten on every change of the site.
${version}[global]
error_log = "${paths.fpm.log}"
daemonize = no
; A reload lets the site's requests under way finish (up to 10 s); no other site's PHP waits for it.
process_control_timeout = 10s
; A crash dumps no core (it holds the site's secrets, and fills its disk).
rlimit_core = 0

[${site.id}]
listen = "${paths.socket}"
listen.mode = 0666
pm = ondemand
pm.max_children = 5
pm.process_idle_timeout = 10s
pm.max_requests = 500
rlimit_core = 0
chdir = /
php_admin_value[open_basedir] = "${paths.home}/:/usr/share/php/:${paths.tmp}/"
php_admin_value[upload_tmp_dir] = "${paths.tmp}"
php_admin_value[session.save_path] = "${paths.tmp}"
php_admin_value[sys_temp_dir] = "${paths.tmp}"
php_admin_value[error_log] = "${paths.phpLogs}/error.log"
php_admin_flag[log_errors] = on
${phpSettingLines(site).join('\n')}
php_admin_value[disable_functions] = "${disabledFor(site).join(',')}"
; A file changed on disk (by its owner over SFTP, or wp-config.php by the runtime) is what runs next, not a copy
; the opcode cache kept for two more seconds.
php_admin_value[opcache.revalidate_freq] = 0
`
}

/** The site master's command line in its sandbox (without the cgroups). */
function masterArgv(settings: PhpFpmSettings, paths: SiteLayout, user: UnixUser | null): string[] {
  return sandboxedMaster(paths, user, [
    settings.binary,
    '--nodaemonize',
    ...opcacheArgs,
    '--fpm-config',
    paths.fpm.conf,
  ])
}

/** The site's master, in its sandbox and cgroups, found through the pid of its sandbox (root's pid file). */
export function createSiteMaster(
  settings: PhpFpmSettings,
  paths: SiteLayout,
  user: UnixUser | null,
): ConfiguredMaster {
  const argv = masterArgv(settings, paths, user)
  const uid = user?.uid ?? runtimeUser()
  const ending = `--fpm-config ${paths.fpm.conf}`
  const sandbox = (cmdline: string) => cmdline.startsWith('bwrap ') && cmdline.endsWith(ending)
  const master = (cmdline: string) =>
    cmdline === `php-fpm: master process (${paths.fpm.conf})` ||
    (cmdline.startsWith(`${settings.binary} `) && cmdline.endsWith(ending))
  return configuredMaster({
    spec: {
      name: `PHP-FPM of site ${paths.id}`,
      argv: settings.enter(paths.id, argv),
      pidFile: paths.fpm.pid,
      privateDir: paths.socketDir,
      recognise: sandbox,
      runsAs: uid,
      pidFileByRuntime: true,
      // The sandbox's one child is PHP-FPM (the namespace's init).
      signalled: (pid) =>
        childrenOf(pid).find((child) => uidOf(child) === uid && master(processInfo(child)?.cmdline ?? '')) ??
        null,
      // A sandbox killed alone leaves its master running (the host's init adopts it); a master killed leaves its
      // sandbox only for an instant. Both are found by the site's user and the configuration they name.
      leftovers: () => {
        const found: number[] = []
        for (const name of readdirSync('/proc')) {
          if (!/^\d+$/.test(name)) continue
          const pid = Number(name)
          const cmdline = processInfo(pid)?.cmdline ?? ''
          if ((sandbox(cmdline) || master(cmdline)) && uidOf(pid) === uid) found.push(pid)
        }
        return [...new Set([...found, ...found.flatMap(descendantsOf)])]
      },
      startupLog: paths.fpm.startupLog,
      log: paths.fpm.log,
      ...phpFpmSignals,
    },
    testArgv: [...argv, '-t'],
    pendingFile: `${paths.fpm.dir}/reload-pending`,
    refusedCode: 'php_fpm_config_refused',
    // Read by the master, the site's user, through its folder (root's, the site's group alone passes).
    fileMode: 0o644,
  })
}

/**
 * The one master every site shared before a master per site (its `php-fpm.conf`, pid file and pools): found running
 * on a node upgraded, stopped once its sites have masters of their own.
 */
export function createSharedPhpFpm(settings: Pick<PhpFpmSettings, 'binary' | 'layout'>): ConfiguredMaster {
  const { php } = settings.layout
  const base = [settings.binary, '--fpm-config', php.shared.conf]
  return configuredMaster({
    spec: {
      name: 'PHP-FPM (shared)',
      argv: base,
      pidFile: php.shared.pid,
      privateDir: php.run,
      // Its pools' sockets were `run/<user>.sock`; the sites' own masters' are in folders under `run/`, not its.
      privateFile: (path) => /\/run\/[^/]+\.sock$/.test(path),
      recognise: (cmdline) => cmdline === `php-fpm: master process (${php.shared.conf})`,
      runsAsRuntime: true,
      startupLog: php.shared.startupLog,
      log: php.shared.log,
      ...phpFpmSignals,
    },
    testArgv: [...base, '-t'],
    pendingFile: `${php.dir}/reload-pending`,
    refusedCode: 'php_fpm_config_refused',
  })
}
