// The PHP scripts that install WordPress and move it to a new address, run with the site's PHP CLI as its user in
// its document root; their input comes on stdin (never in argv, where `ps` shows it).

import { randomBytes } from 'node:crypto'
import { type ApplicationSite, NodeFailure, outputOf } from '../../nodes/node/contract.ts'
import type { WordPressAppSettings } from './app-settings.ts'
import { siteUrl } from './wp-config.ts'

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
// No hash: the panel no longer holds one (WordPress provisioned again over its database): its admin is kept.
if ($in['hash'] !== null) {
    $user = get_user_by('login', $in['user']);
    if (!$user) { fwrite(STDERR, 'WordPress has no user ' . $in['user']); exit(1); }
    global $wpdb;
    // WordPress 6.1 checks a hash that is not its own ($P$) with crypt(): the bcrypt hash the panel gives logs in.
    $updated = $wpdb->update($wpdb->users, ['user_pass' => $in['hash'], 'user_activation_key' => ''], ['ID' => $user->ID]);
    if ($updated === false) { fwrite(STDERR, 'Setting the password failed: ' . $wpdb->last_error); exit(1); }
    clean_user_cache($user->ID);
}
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
  site: ApplicationSite,
  php: string,
  script: string,
  input: Record<string, string | null>,
  signal: AbortSignal,
): Promise<void> {
  const result = await site.run(
    [php, '-d', 'display_errors=stderr', '-r', script],
    { stdin: JSON.stringify(input), cwd: site.htdocs },
    signal,
  )
  if (result.code !== 0 || !result.stdout.includes(doneMarker))
    throw new NodeFailure(`${what} failed for site ${site.id}: ${outputOf(result)}`, 'wordpress_failed')
}

/**
 * Installs WordPress on its database (unless it is installed: an installation a crash interrupted is completed)
 * and gives its admin the password hash the panel chose, in place of the throwaway one the installer needs (none
 * when the panel no longer has it: an installation found on the database keeps its admin's password).
 */
export async function installWordPress(
  site: ApplicationSite,
  php: string,
  settings: WordPressAppSettings,
  signal: AbortSignal,
): Promise<void> {
  await runScript(
    'Installing WordPress',
    site,
    php,
    installScript,
    {
      domain: site.spec.domain,
      title: settings.title,
      user: settings.admin.user,
      email: settings.admin.email,
      hash: settings.admin.passwordHash,
      throwaway: randomBytes(24).toString('base64url'),
    },
    signal,
  )
}

/** Moves WordPress to the site's domain: its `home` and `siteurl` options and the two defines of `wp-config.php`. */
export async function moveWordPress(site: ApplicationSite, php: string, signal: AbortSignal): Promise<void> {
  const { domain } = site.spec
  await runScript(
    'Moving WordPress to its new domain',
    site,
    php,
    addressScript,
    { domain, url: siteUrl(domain) },
    signal,
  )
}
