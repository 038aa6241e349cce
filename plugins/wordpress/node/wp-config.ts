// A WordPress site's `wp-config.php`: written once when WordPress is installed (the site's database, fresh keys and
// salts, its address), and its database settings carried to it later without touching the rest.

import { randomBytes } from 'node:crypto'
import type { WordPressAppSettings } from './app-settings.ts'

/** The address WordPress knows the site by: `http://<domain>`, without the node's port (see the README). */
export const siteUrl = (domain: string) => `http://${domain}`

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

/** `DB_HOST` as WordPress reads it: an IPv6 address in brackets, then the port. */
const databaseHost = ({ host, port }: WordPressAppSettings['database']) =>
  `${host.includes(':') ? `[${host}]` : host}:${port}`

/** `wp-config.php`: the site's database, fresh keys and salts, its address, and no file editor in the admin. */
export function wpConfig(siteId: string, domain: string, settings: WordPressAppSettings): string {
  const { database } = settings
  const define = (name: string, value: string) => `define(${phpString(name)}, ${phpString(value)});`
  return `<?php
// Written by Plinth for site ${siteId} when WordPress was installed. WP_HOME and WP_SITEURL follow the site's
// domain; the rest is yours to change.
${define('DB_NAME', database.name)}
${define('DB_USER', database.user)}
${define('DB_PASSWORD', database.password)}
${define('DB_HOST', databaseHost(database))}
${define('DB_CHARSET', 'utf8mb4')}
${define('DB_COLLATE', '')}

${saltKeys.map((key) => define(key, salt())).join('\n')}

$table_prefix = 'wp_';

${define('WP_HOME', siteUrl(domain))}
${define('WP_SITEURL', siteUrl(domain))}
define('DISALLOW_FILE_EDIT', true);

if (!defined('ABSPATH')) {
    define('ABSPATH', __DIR__ . '/');
}
require_once ABSPATH . 'wp-settings.php';
`
}

/**
 * `current` (an installed site's `wp-config.php`) with the database settings given, the rest (salts, the customer's
 * own lines) as it is; null when its settings are no longer the plain `define`s Plinth wrote (left alone then). The
 * panel sets a new database password on every provisioning attempt, and an attempt repeated after WordPress was
 * installed (a lost answer, a restarted panel) must carry it to the site.
 */
export function withDatabaseSettings(
  current: string,
  database: WordPressAppSettings['database'],
): string | null {
  const values: Record<string, string> = {
    DB_NAME: database.name,
    DB_USER: database.user,
    DB_PASSWORD: database.password,
    DB_HOST: databaseHost(database),
  }
  const lines = current.split('\n')
  for (const [name, value] of Object.entries(values)) {
    // The line Plinth wrote: `define('DB_PASSWORD', '…');`, alone on its line.
    const at = lines.findIndex(
      (line) => line.startsWith(`define(${phpString(name)}, '`) && line.endsWith(');'),
    )
    if (at < 0) return null
    lines[at] = `define(${phpString(name)}, ${phpString(value)});`
  }
  return lines.join('\n')
}
