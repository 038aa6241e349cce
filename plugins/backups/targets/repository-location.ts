// Where one site's repository is on a target, as restic reaches it: `<path>/<siteId>` on an SFTP server,
// `<url>/<siteId>/` on a REST server, `<prefix>/<siteId>` in an S3 bucket, `<siteId>` under a node's own folder.

import type { SecretBox } from '../../../core/index.ts'
import type { BackupTargetsTable } from '../migrations.ts'
import type { RepositoryLocation } from '../node/protocol.ts'
import { type OpenTarget, openTarget } from './target-record.ts'

/**
 * Who reaches a repository: `push` as nodes do (back up, restore, read), `prune` as the panel does to forget
 * snapshots (a target's separate prune credentials when it has them, else the same).
 */
export type RepositoryPurpose = 'push' | 'prune'

/**
 * The location of the repository named `siteId` on the target `row`, with the credentials of `purpose`.
 * @example locationFor(row, context.secrets, 'site_01J…', 'push') // { kind: 'rest', url: 'https://b.example/site_01J…/', … }
 */
export function locationFor(
  row: BackupTargetsTable,
  secrets: SecretBox,
  siteId: string,
  purpose: RepositoryPurpose,
): RepositoryLocation {
  return locationIn(openTarget(row, secrets), siteId, purpose)
}

/** The location of the repository `name` on an open target (one being checked before it is stored, too). */
export function locationIn(target: OpenTarget, name: string, purpose: RepositoryPurpose): RepositoryLocation {
  const { place, push, prune } = target
  switch (place.kind) {
    case 'local':
      return { kind: 'local', name }
    case 'sftp':
      if (push?.kind !== 'sftp') throw new Error('an sftp target without its private key')
      return {
        kind: 'sftp',
        host: place.host,
        port: place.port,
        username: place.username,
        path: `${place.path.replace(/\/+$/, '')}/${name}`,
        privateKey: push.privateKey,
        knownHosts: knownHostsOf(place.host, place.port, place.hostKeys),
      }
    case 'rest': {
      const own = purpose === 'prune' && prune?.kind === 'rest' ? prune : null
      return {
        kind: 'rest',
        url: `${place.url.replace(/\/+$/, '')}/${name}/`,
        username: own ? own.username : place.username,
        password: own ? own.password : push?.kind === 'rest' ? push.password : null,
      }
    }
    case 's3': {
      const own = purpose === 'prune' && prune?.kind === 's3' ? prune : null
      if (!own && push?.kind !== 's3') throw new Error('an s3 target without its secret key')
      return {
        kind: 's3',
        endpoint: place.endpoint,
        bucket: place.bucket,
        prefix: [place.prefix.replace(/^\/+|\/+$/g, ''), name].filter((part) => part !== '').join('/'),
        region: place.region,
        accessKeyId: own ? own.accessKeyId : place.accessKeyId,
        secretAccessKey: own ? own.secretAccessKey : (push as { secretAccessKey: string }).secretAccessKey,
      }
    }
  }
}

/** `known_hosts` lines pinning `keys` for the server: ssh names a server off port 22 `[host]:port`. */
export function knownHostsOf(host: string, port: number, keys: readonly string[]): string {
  const name = port === 22 ? host : `[${host}]:${port}`
  return keys.map((key) => `${name} ${key}`).join('\n')
}
