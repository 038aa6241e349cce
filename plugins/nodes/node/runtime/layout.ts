// Where the runtime keeps everything under its data directory, and the names it gives a site (Unix user, socket).

import { createHash } from 'node:crypto'
import { dirname, join, resolve } from 'node:path'
import type { SiteSpec } from '../contract.ts'
import { NodeFailure } from '../contract.ts'
import { checkConfigPath, checkSiteSpec } from './site-spec.ts'

/** The runtime's own paths: its nginx and PHP-FPM masters' files and the sites' root. */
export interface RuntimeLayout {
  readonly dataDir: string
  /** `<dataDir>/sites`: one home per site, and `.trash` for deletions under way. */
  readonly sites: string
  readonly trash: string
  /** `<dataDir>/disks`: the filesystem image of each site with a disk quota (`site-disks.ts`), root's alone (0700). */
  readonly disks: string
  /** `<dataDir>/nginx`: nginx's prefix (`-p`), its `nginx.conf`, pid, logs, temporary files and `sites/*.conf`. */
  readonly nginx: {
    readonly prefix: string
    readonly conf: string
    readonly fastcgiParams: string
    readonly pid: string
    readonly errorLog: string
    /** Where the master's stderr goes (what it says before it opens its error log). */
    readonly startupLog: string
    readonly temp: string
    readonly sites: string
  }
  /**
   * `<dataDir>/php`: a folder per site's PHP-FPM master under `sites/`, a folder per site's socket under `run/`; and
   * where runtimes before a master per site kept their one shared master (`php-fpm.conf`, pid, log, `pools/*.conf`),
   * read only to move its sites to masters of their own (`php-upgrade.ts`).
   */
  readonly php: {
    readonly dir: string
    readonly sites: string
    readonly run: string
    readonly shared: {
      readonly conf: string
      readonly pid: string
      readonly log: string
      readonly startupLog: string
      readonly pools: string
    }
  }
  /** What `traffic()` read of each site's access log so far. */
  readonly trafficOffsets: string
  /** `<dataDir>/resources`: how often each site hit its limits, by hour (`limit-hits.ts`); root's alone. */
  readonly resources: string
  /** `<dataDir>/site-uids`: the last uid (and gid) given to a site's user; never counts down (`site-uids.ts`). */
  readonly siteIds: string
  /**
   * `<dataDir>/service-ports.json`: the ports the node's services served the sites on when last started (the
   * database server's), kept open to the sites while the node starts again, before its services have.
   */
  readonly servicePorts: string
  /** `<dataDir>/tls`: the certificates and keys sites are served with over HTTPS, root's alone (0700). */
  readonly tls: string
  /**
   * `<dataDir>/serving`: each site's redirects and headers as last applied (`<site id>.json`, root's), on the node's
   * disk rather than in its `state.json`, where hundreds of rules would outgrow the room held back on a full disk.
   */
  readonly serving: string
  /** ACME HTTP-01 answers, served on every site's domain over plain HTTP (readable by nginx's workers). */
  readonly acme: {
    /** `<dataDir>/acme`: the `root` of the challenge location, so a request's path names the file. */
    readonly root: string
    /** `<dataDir>/acme/.well-known/acme-challenge`: one file per token. */
    readonly challenges: string
  }
}

/** A site's paths and names. */
export interface SiteLayout {
  readonly id: string
  /** `<dataDir>/sites/<site id>`: root-owned, the site's user cannot rename what is in it. */
  readonly home: string
  /** The document root, the site's user's. */
  readonly htdocs: string
  /** nginx's access and error logs (root's, readable by the site's group). */
  readonly logs: string
  readonly accessLog: string
  /** PHP's error log, in a folder of the site's user's inside `logs/`. */
  readonly phpLogs: string
  /** Uploads, sessions, PHP's temporary files. */
  readonly tmp: string
  /** What the runtime keeps of the site (`state.json`, root's). */
  readonly state: string
  readonly placeholder: string
  /** `<dataDir>/nginx/sites/<site id>.conf`. */
  readonly serverBlock: string
  /**
   * The site's PHP-FPM master: `<dataDir>/php/sites/<site id>/` (root's, the site's group passes through and reads),
   * with its configuration (`php-fpm.conf`: the master's and its one pool's), the `passwd` and `group` its sandbox
   * shows, and what the runtime keeps of it alone: the pid of the sandbox it runs in, and what it said before it
   * opened its log. Its log is the site's `logs/php-fpm.log` (root's, appended to by the master, which runs as the
   * site's user): what the site makes its master write counts in the site's disk, not the node's.
   */
  readonly fpm: {
    readonly dir: string
    readonly conf: string
    readonly passwd: string
    readonly group: string
    readonly log: string
    readonly pid: string
    readonly startupLog: string
  }
  /** `<dataDir>/php/sites/<site id>/php-fpm.conf`: the site's PHP-FPM configuration (see `fpm`). */
  readonly pool: string
  /**
   * `<dataDir>/php/run/<user name>/` (the site's user's, group www-data, 0750): the one folder nginx's workers and
   * the site's master share, so no other site reaches the socket in it.
   */
  readonly socketDir: string
  /** The pool's socket, `<socketDir>/php.sock` (short: a socket's path has at most 107 bytes). */
  readonly socket: string
  /** The site's Unix user (and group): see {@link unixUserName}. */
  readonly user: string
  /** `<dataDir>/tls/<site id>`: its certificate and key, `<fingerprint>.pem` and `<fingerprint>.key` (0700). */
  readonly tls: string
  /** `<dataDir>/disks/<site id>.ext4`: the filesystem its home is mounted from when it has a disk quota. */
  readonly image: string
  /** `<dataDir>/serving/<site id>.json`: its redirects and headers as last applied (see `RuntimeLayout.serving`). */
  readonly servingRules: string
}

/** The runtime's paths for `dataDir`; throws when the directory cannot be named in nginx's or PHP-FPM's files. */
export function runtimeLayout(dataDir: string): RuntimeLayout {
  const root = resolve(dataDir)
  checkConfigPath(root)
  const nginx = join(root, 'nginx')
  const php = join(root, 'php')
  const layout: RuntimeLayout = {
    dataDir: root,
    sites: join(root, 'sites'),
    trash: join(root, 'sites', '.trash'),
    disks: join(root, 'disks'),
    nginx: {
      prefix: `${nginx}/`,
      conf: join(nginx, 'nginx.conf'),
      fastcgiParams: join(nginx, 'fastcgi_params'),
      pid: join(nginx, 'nginx.pid'),
      errorLog: join(nginx, 'logs', 'error.log'),
      startupLog: join(nginx, 'logs', 'startup.log'),
      temp: join(nginx, 'temp'),
      sites: join(nginx, 'sites'),
    },
    php: {
      dir: php,
      sites: join(php, 'sites'),
      run: join(php, 'run'),
      shared: {
        conf: join(php, 'php-fpm.conf'),
        pid: join(php, 'php-fpm.pid'),
        log: join(php, 'php-fpm.log'),
        startupLog: join(php, 'startup.log'),
        pools: join(php, 'pools'),
      },
    },
    trafficOffsets: join(root, 'traffic-offsets.json'),
    resources: join(root, 'resources'),
    siteIds: join(root, 'site-uids'),
    servicePorts: join(root, 'service-ports.json'),
    tls: join(root, 'tls'),
    serving: join(root, 'serving'),
    acme: {
      root: join(root, 'acme'),
      challenges: join(root, 'acme', '.well-known', 'acme-challenge'),
    },
  }
  // The longest socket path a site can get must fit a Unix socket address.
  const longest = join(layout.php.run, 'x'.repeat(maxUserName), socketName)
  if (Buffer.byteLength(longest) > 107)
    throw new Error(`The site runtime cannot use ${root}: its sockets' paths would pass 107 bytes`)
  return layout
}

/** The site's paths, after checking its spec, and that its home is one segment below `sites/`. */
export function siteLayout(runtime: RuntimeLayout, site: SiteSpec): SiteLayout {
  checkSiteSpec(site)
  const home = resolve(runtime.sites, site.id)
  if (dirname(home) !== runtime.sites)
    throw new NodeFailure(`Site ${site.id} escapes ${runtime.sites}`, 'unsafe_site_spec')
  const user = unixUserName(site)
  const htdocs = join(home, 'htdocs')
  const logs = join(home, 'logs')
  const fpm = join(runtime.php.sites, site.id)
  const socketDir = join(runtime.php.run, user)
  return {
    id: site.id,
    home,
    htdocs,
    logs,
    accessLog: join(logs, 'access.log'),
    phpLogs: join(logs, 'php'),
    tmp: join(home, 'tmp'),
    state: join(home, 'state.json'),
    placeholder: join(htdocs, 'index.html'),
    serverBlock: join(runtime.nginx.sites, `${site.id}.conf`),
    fpm: {
      dir: fpm,
      conf: join(fpm, 'php-fpm.conf'),
      passwd: join(fpm, 'passwd'),
      group: join(fpm, 'group'),
      log: join(logs, 'php-fpm.log'),
      pid: join(fpm, 'master.pid'),
      startupLog: join(fpm, 'startup.log'),
    },
    pool: join(fpm, 'php-fpm.conf'),
    socketDir,
    socket: join(socketDir, socketName),
    user,
    tls: join(runtime.tls, site.id),
    image: join(runtime.disks, `${site.id}.ext4`),
    servingRules: join(runtime.serving, `${site.id}.json`),
  }
}

const maxUserName = 31
const socketName = 'php.sock'

/**
 * A site's Unix user: `s_<handle, at most 20 characters>_<8 characters of a hash of the id>`, at most 31
 * characters (Linux allows 32), e.g. `s_my-shop_k3v9q2xa`. The handle makes it readable in `ps` and `ls -l`; the
 * hash of the id keeps two sites apart however their handles begin, and is the same on every repeat.
 */
export function unixUserName(site: Pick<SiteSpec, 'id' | 'handle'>): string {
  const digest = createHash('sha256').update(site.id).digest()
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  let suffix = ''
  for (let index = 0; index < 8; index++) suffix += alphabet[(digest[index] ?? 0) % 32]
  return `s_${site.handle.slice(0, 20)}_${suffix}`
}
