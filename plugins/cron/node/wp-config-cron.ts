// WordPress's own WP-Cron (run on page views) turned off or on in the site's `wp-config.php`, by a line of Plinth's
// own, edited by PHP running as the site's user (so a link planted in place of the file reaches nothing of the node).

import { NodeRefusal, type NodeSite } from '../../nodes/node/contract.ts'

/** The line Plinth adds; found again by its comment. */
export const disableLine =
  "defined('DISABLE_WP_CRON') || define('DISABLE_WP_CRON', true); // Plinth: WP-Cron runs as a cron job of the site"

/** Adds (`argv[1]` 1) or removes (0) {@link disableLine} just after `<?php`; exit 3 when there is no wp-config.php. */
const script = `<?php
$path = 'htdocs/wp-config.php';
if (!is_file($path)) { fwrite(STDERR, "The site has no htdocs/wp-config.php.\\n"); exit(3); }
$text = file_get_contents($path);
$line = ${JSON.stringify(disableLine).replaceAll('$', '\\$')};
$text = str_replace($line . "\\n", '', $text);
if ($argv[1] === '1') {
  if (strncmp($text, "<?php\\n", 6) !== 0) { fwrite(STDERR, "wp-config.php does not start with <?php.\\n"); exit(4); }
  $text = "<?php\\n" . $line . "\\n" . substr($text, 6);
}
if (file_put_contents($path, $text) === false) exit(5);
`

/** Turns WordPress's WP-Cron off (`disabled`) or back on in the site's wp-config.php. */
export async function setWpCron(site: NodeSite, disabled: boolean, signal: AbortSignal): Promise<void> {
  const result = await site.run(
    ['php', '--', disabled ? '1' : '0'],
    { stdin: script, timeoutMs: 30_000 },
    signal,
  )
  if (result.code === 3)
    throw new NodeRefusal(
      'wp_config_missing',
      'The site has no htdocs/wp-config.php: it is not a WordPress site.',
    )
  if (result.code !== 0)
    throw new NodeRefusal(
      'wp_config_unchanged',
      `wp-config.php could not be changed: ${result.stderr.trim().slice(-500)}`,
    )
}
