// Refusals of the wordpress plugin: creating a WordPress site, and the operations on its WordPress (most are the
// node's refusals under the same code, see node/runner.php and node/site-path.ts).

import { defineProblems } from '../../core/index.ts'

export const wordpressProblems = defineProblems({
  weak_admin_password: {
    status: 422,
    detail: 'The WordPress administrator’s password is too weak.',
    description:
      '`wordpress.adminPassword` is 12 to 72 printable ASCII characters, not all of one kind (letters, digits, others). Leave it out and the panel generates one, shown once in the answer.',
  },
  not_a_wordpress_site: {
    status: 409,
    detail: 'The site is not a WordPress site.',
    description: 'WordPress operations are for sites of type `wordpress` only.',
  },
  wordpress_not_installed: {
    status: 409,
    detail: 'The site has no WordPress installed.',
    description:
      'The site’s node lays out files only (no nginx and PHP-FPM: WordPress is not installed there), or `/htdocs/wp-load.php` or `/htdocs/wp-config.php` is gone.',
  },
  wordpress_plugin_not_found: {
    status: 404,
    detail: 'The site has no plugin of that slug.',
    description:
      '`slug` names no installed plugin (its folder, or its file without `.php` for a single-file plugin).',
  },
  wordpress_theme_not_found: {
    status: 404,
    detail: 'The site has no theme of that slug.',
    description: '`slug` names no installed theme (its folder).',
  },
  wordpress_user_not_found: {
    status: 404,
    detail: 'The site has no WordPress user of that id.',
    description: '`userId` is not the id of one of the WordPress site’s users.',
  },
  wordpress_plugin_active: {
    status: 409,
    detail: 'The plugin is active: deactivate it first.',
    description: 'An active plugin is not deleted (as in WordPress’s own admin).',
  },
  wordpress_theme_active: {
    status: 409,
    detail: 'The theme is in use: activate another first.',
    description: 'The active theme, and the parent of the active theme, are not deleted.',
  },
  wordpress_plugin_exists: {
    status: 409,
    detail: 'That plugin is installed already.',
    description:
      'The package’s folder is in `wp-content/plugins` already; nothing was changed. Delete the plugin first to install another version.',
  },
  wordpress_theme_exists: {
    status: 409,
    detail: 'That theme is installed already.',
    description:
      'The package’s folder is in `wp-content/themes` already; nothing was changed. Delete the theme first to install another version.',
  },
  wordpress_activation_failed: {
    status: 422,
    detail: 'WordPress did not activate it.',
    description:
      'WordPress refused the activation: the plugin failed to load or printed output, it needs another PHP or WordPress version, or the theme is broken. The detail has WordPress’s words.',
  },
  invalid_wordpress_package: {
    status: 422,
    detail: 'The file is not a WordPress plugin or theme package.',
    description:
      'The file is not a zip archive WordPress can install (encrypted, ZIP64, truncated), holds no plugin (a PHP file with a `Plugin Name:` header) or theme (`style.css` with `Theme Name:`), or would install into a folder that is not a slug (`reason` `folder`, `folder` names it: the archive’s one top folder, else the zip’s name without `.zip`, must be letters, digits, `-` and `_`, starting with a letter or digit, so that the plugin or theme can be managed afterwards). Nothing was installed.',
  },
  unsafe_package_entry: {
    status: 422,
    detail: 'The archive holds an entry that would land outside its folder.',
    description:
      'An entry of the zip climbs out with `..`, is an absolute path, has no usable name, or is a symbolic link (`reason`: `climbs`, `absolute`, `name`, `link`; `entry` names it). Nothing was extracted.',
  },
  wordpress_package_not_found: {
    status: 422,
    detail: 'There is no file at that path in the site.',
    description: '`path` names nothing in the site (upload the zip first, with the files API or SFTP).',
  },
  invalid_package_path: {
    status: 422,
    detail: 'The path is not a regular file in the site.',
    description:
      '`path` is a site path (`/tmp/plugin.zip`: `/` is the site’s home) of a regular file: no NUL byte or control character, not a symbolic link (never followed), not a directory, not `/state.json`.',
  },
  package_path_escapes_site: {
    status: 422,
    detail: 'The path leads out of the site.',
    description:
      'A `..` that climbs above `/`, or a parent folder that is a symbolic link to somewhere outside the site. Nothing was read.',
  },
  wordpress_user_exists: {
    status: 409,
    detail: 'A WordPress user with that login or e-mail exists already.',
    description:
      'WordPress logins and e-mails are unique in a site (`reason`: `existing_user_login` or `existing_user_email`).',
  },
  unknown_wordpress_role: {
    status: 422,
    detail: 'The site has no such role.',
    description:
      '`role` is not one of the site’s WordPress roles (`roles` lists them: `administrator`, `editor`, `author`, `contributor`, `subscriber` unless a plugin added others).',
  },
  wordpress_error: {
    status: 502,
    detail: 'WordPress failed while running the operation.',
    description:
      'The site’s WordPress stopped with an error (a PHP fatal error, a database it cannot reach, files it cannot write). The detail has its words; the site’s own code or configuration is the usual cause.',
  },
  wordpress_output_too_large: {
    status: 502,
    detail: 'WordPress printed more than the runner reads (8 MiB): the operation was stopped.',
    description:
      'The site’s own code (a must-use plugin, a drop-in such as `object-cache.php`, `wp-config.php`) printed without end while the operation ran; the runner was killed once its output passed 8 MiB. Fix the site’s code and try again.',
  },
  wordpress_unavailable: {
    status: 503,
    detail: 'The site’s node could not run the WordPress operation.',
    description:
      'The node is unreachable, did not answer within five minutes, or does not offer WordPress operations (an older agent). Try again later.',
  },
})
