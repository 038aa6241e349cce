// What the panel tells a node to install WordPress with (a site spec's `app.settings` for `kind: "wordpress"`),
// shared by the panel's side, which makes it, and the node's, which checks it before using a byte of it.

import { NodeFailure } from '../../nodes/node/contract.ts'

/** The application kind WordPress sites name in their spec. */
export const wordpressKind = 'wordpress'

/**
 * WordPress from the node's Debian `wordpress` package, installed into the site's document root, with its own
 * `wp-config.php` (fresh salts), on the database given, and installed with `title` and the admin given.
 */
export interface WordPressAppSettings {
  /** The blog's title: the site's name. */
  readonly title: string
  /** The site's MariaDB database and login (the databases plugin made them); the password goes in wp-config.php. */
  readonly database: {
    readonly host: string
    readonly port: number
    readonly name: string
    readonly user: string
    readonly password: string
  }
  /**
   * The administrator the installer creates. `passwordHash` is a bcrypt hash (`$2y$…`) of the password the panel
   * showed once, which WordPress checks with PHP's `crypt()`: the panel never keeps the password, nor does the node.
   * Null once the panel dropped it (the site was provisioned): WordPress provisioned again into an empty home (a
   * rebuilt node) keeps the administrator its database has, and the password with it.
   */
  readonly admin: { readonly user: string; readonly email: string; readonly passwordHash: string | null }
}

const text = (value: unknown, pattern: RegExp) => typeof value === 'string' && pattern.test(value)

/** The settings checked: a node trusts its panel, but writes nothing of a shape it does not expect. */
export function checkedSettings(settings: unknown): WordPressAppSettings {
  const given = settings as Partial<WordPressAppSettings> | null
  const database = given?.database
  const admin = given?.admin
  const fine =
    text(given?.title, /^[^\0]{1,400}$/) &&
    text(database?.host, /^[A-Za-z0-9.:_-]{1,255}$/) &&
    Number.isInteger(database?.port) &&
    text(database?.name, /^[A-Za-z0-9_]{1,64}$/) &&
    text(database?.user, /^[A-Za-z0-9_]{1,80}$/) &&
    text(database?.password, /^[^\0\n]{1,200}$/) &&
    text(admin?.user, /^[A-Za-z0-9_.@-]{1,60}$/) &&
    text(admin?.email, /^[^\s@]{1,64}@[^\s@]{1,255}$/) &&
    (admin?.passwordHash === null || text(admin?.passwordHash, /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/))
  if (!fine)
    throw new NodeFailure('The WordPress settings are not what the node installs with', 'unsafe_app_settings')
  return given as WordPressAppSettings
}
