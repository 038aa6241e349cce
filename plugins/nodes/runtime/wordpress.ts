// WordPress from Debian's `wordpress` package, installed into a site: its tree copied (links dereferenced: the
// site gets its own copy of what Debian links elsewhere), its own `wp-config.php`, and WordPress's installer run
// with the PHP CLI as the site's user; and a later change of the site's address.

import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { JobFailure } from '../../../core/index.ts'
import type { SiteSpec, WordPressApp } from '../contract.ts'
import type { FileOwner } from './atomic-files.ts'
import { writeFileAtomic } from './atomic-files.ts'
import { outputOf, type RunAs, run, runChecked } from './commands.ts'
import type { SiteLayout } from './layout.ts'
import { readSiteFile } from './site-home.ts'

/** The address WordPress knows the site by: `http://<domain>`, without the runtime's port (see the README). */
export const siteUrl = (domain: string) => `http://${domain}`

/** Copies the WordPress tree into the document root as the site's user (so every file is the user's). */
export async function copyWordPress(
  source: string,
  paths: SiteLayout,
  as: RunAs | undefined,
  signal: AbortSignal,
): Promise<void> {
  await runChecked('Copying WordPress', ['cp', '-rL', `${source}/.`, `${paths.htdocs}/`], { as, signal })
}

const saltKeys = [
  'AUTH_KEY',
  'SECURE_AUTH_KEY',
  'LOGGED_IN_KEY',
  'NONCE_KEY',
  'AUTH_SALT',
  'SECURE_AUTH_SALT',
  'LOGGED_IN_SALT',
  'NONCE_SALT',
] as const

/** 64 random characters that need no escaping in PHP's single quotes. */
const salt = () => randomBytes(48).toString('base64')

/** A PHP single-quoted string literal of `text`. */
const phpString = (text: string) => `'${text.replace(/[\\']/g, (char) => `\\${char}`)}'`

/** `wp-config.php`: the site's database, fresh keys and salts, its address, and no file editor in the admin. */
export function wpConfig(site: SiteSpec, app: WordPressApp): string {
  const { database } = app
  const define = (name: string, value: string) => `define(${phpString(name)}, ${phpString(value)});`
  return `<?php
// Written by Plinth for site ${site.id} when WordPress was installed. WP_HOME and WP_SITEURL follow the site's
// domain; the rest is yours to change.
${define('DB_NAME', database.name)}
${define('DB_USER', database.user)}
${define('DB_PASSWORD', database.password)}
${define('DB_HOST', `${database.host.includes(':') ? `[${database.host}]` : database.host}:${database.port}`)}
${define('DB_CHARSET', 'utf8mb4')}
${define('DB_COLLATE', '')}

${saltKeys.map((key) => define(key, salt())).join('\n')}

$table_prefix = 'wp_';

${define('WP_HOME', siteUrl(site.domain))}
${define('WP_SITEURL', siteUrl(site.domain))}
define('DISALLOW_FILE_EDIT', true);

if (!defined('ABSPATH')) {
    define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
`
}

/** Writes `wp-config.php` (mode 0640, the site's user's) over the one Debian's tree brings. */
export async function writeWpConfig(
  site: SiteSpec,
  app: WordPressApp,
  paths: SiteLayout,
  owner: FileOwner | undefined,
  signal: AbortSignal,
): Promise<void> {
  await writeFileAtomic(join(paths.htdocs, 'wp-config.php'), wpConfig(site, app), signal, 0o640, owner)
}

/**
 * Puts the database settings `app` carries into an installed site's `wp-config.php`, leaving the rest (salts, the
 * customer's own lines) as it is: the panel sets a new database password on every provisioning attempt, and an
 * attempt repeated after WordPress was installed (a lost answer, a restarted panel) must carry it to the site.
 * A file whose settings are no longer the plain `define`s this runtime wrote is left alone.
 */
export async function updateDatabaseSettings(
  app: WordPressApp,
  paths: SiteLayout,
  owner: FileOwner | undefined,
  signal: AbortSignal,
): Promise<void> {
  const path = join(paths.htdocs, 'wp-config.php')
  const current = await readSiteFile(path, 1_048_576)
  if (current === null) return
  const { database } = app
  const values: Record<string, string> = {
    DB_NAME: database.name,
    DB_USER: database.user,
    DB_PASSWORD: database.password,
    DB_HOST: `${database.host.includes(':') ? `[${database.host}]` : database.host}:${database.port}`,
  }
  const lines = current.split('\n')
  for (const [name, value] of Object.entries(values)) {
    // The line this runtime wrote: `define('DB_PASSWORD', '…');`, alone on its line.
    const at = lines.findIndex(
      (line) => line.startsWith(`define(${phpString(name)}, '`) && line.endsWith(');'),
    )
    if (at < 0) return
    lines[at] = `define(${phpString(name)}, ${phpString(value)});`
  }
  const updated = lines.join('\n')
  if (updated !== current) await writeFileAtomic(path, updated, signal, 0o640, owner)
}

/** What the PHP scripts print when they are done: WordPress may print anything before (and `wp_die` exits 0). */
const doneMarker = 'PLINTH-DONE'

// Runs as the site's user in its document root; the input comes on stdin (never in argv, where `ps` shows it).
const installScript = `
$in = json_decode(stream_get_contents(STDIN), true);
define('WP_INSTALLING', true);
$_SERVER['HTTP_HOST'] = $in['domain'];
$_SERVER['SERVER_NAME'] = $in['domain'];
$_SERVER['REQUEST_URI'] = '/';
// The installer mails the admin their password; there is no mail here, and the password is a throwaway one.
function wp_new_blog_notification($blog_title, $blog_url, $user_id, $password) {}
require getcwd() . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
if (!is_blog_installed()) {
    $result = wp_install($in['title'], $in['user'], $in['email'], true, '', $in['throwaway']);
    if (is_wp_error($result)) { fwrite(STDERR, $result->get_error_message()); exit(1); }
}
$user = get_user_by('login', $in['user']);
if (!$user) { fwrite(STDERR, 'WordPress has no user ' . $in['user']); exit(1); }
global $wpdb;
// WordPress 6.1 checks a hash that is not its own ($P$) with crypt(): the bcrypt hash the panel gives logs in.
$updated = $wpdb->update($wpdb->users, ['user_pass' => $in['hash'], 'user_activation_key' => ''], ['ID' => $user->ID]);
if ($updated === false) { fwrite(STDERR, 'Setting the password failed: ' . $wpdb->last_error); exit(1); }
clean_user_cache($user->ID);
echo "\\n${doneMarker}\\n";
`

const addressScript = `
$in = json_decode(stream_get_contents(STDIN), true);
$_SERVER['HTTP_HOST'] = $in['domain'];
$_SERVER['SERVER_NAME'] = $in['domain'];
$_SERVER['REQUEST_URI'] = '/';
require getcwd() . '/wp-load.php';
update_option('home', $in['url']);
update_option('siteurl', $in['url']);
$path = ABSPATH . 'wp-config.php';
$config = file_get_contents($path);
foreach (['WP_HOME', 'WP_SITEURL'] as $name) {
    $config = preg_replace_callback(
        "/define\\\\(\\\\s*'" . $name . "'\\\\s*,\\\\s*'[^']*'\\\\s*\\\\);/",
        fn () => "define('" . $name . "', '" . $in['url'] . "');",
        $config
    );
}
// Replaced whole, keeping the file's group and mode: a request never reads half a configuration.
$temporary = $path . '.plinth-' . getmypid() . '.tmp';
file_put_contents($temporary, $config);
chgrp($temporary, filegroup($path));
chmod($temporary, fileperms($path) & 0777);
rename($temporary, $path);
echo "\\n${doneMarker}\\n";
`

/** Runs one of the scripts with the PHP CLI; throws with WordPress's words unless it got to the end. */
async function runScript(
  what: string,
  php: string,
  script: string,
  input: Record<string, string>,
  paths: SiteLayout,
  as: RunAs | undefined,
  signal: AbortSignal,
): Promise<void> {
  const result = await run([php, '-d', 'display_errors=stderr', '-r', script], {
    stdin: JSON.stringify(input),
    cwd: paths.htdocs,
    as,
    signal,
  })
  if (result.code !== 0 || !result.stdout.includes(doneMarker))
    throw new JobFailure(`${what} failed for site ${paths.id}: ${outputOf(result)}`, 'wordpress_failed')
}

/**
 * Installs WordPress on its database (unless it is installed: an installation a crash interrupted is completed)
 * and gives its admin the password hash the panel chose, in place of the throwaway one the installer needs.
 */
export async function installWordPress(
  php: string,
  site: SiteSpec,
  app: WordPressApp,
  paths: SiteLayout,
  as: RunAs | undefined,
  signal: AbortSignal,
): Promise<void> {
  await runScript(
    'Installing WordPress',
    php,
    installScript,
    {
      domain: site.domain,
      title: app.title,
      user: app.admin.user,
      email: app.admin.email,
      hash: app.admin.passwordHash,
      throwaway: randomBytes(24).toString('base64url'),
    },
    paths,
    as,
    signal,
  )
}

/** Moves WordPress to `domain`: its `home` and `siteurl` options and the two defines of `wp-config.php`. */
export async function moveWordPress(
  php: string,
  domain: string,
  paths: SiteLayout,
  as: RunAs | undefined,
  signal: AbortSignal,
): Promise<void> {
  await runScript(
    'Moving WordPress to its new domain',
    php,
    addressScript,
    { domain, url: siteUrl(domain) },
    paths,
    as,
    signal,
  )
}
