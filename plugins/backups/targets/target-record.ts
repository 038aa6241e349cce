// A target as the panel keeps it: where it is (stored in the clear, `location_json`) and its secrets (sealed JSON,
// `push_secrets_sealed` and `prune_secrets_sealed`), one shape per kind.

import type { SecretBox } from '../../../core/index.ts'
import type { TargetKind } from '../contract.ts'
import type { BackupTargetsTable } from '../migrations.ts'

/** Where a target is, without secrets (`location_json`). */
export type TargetPlace =
  | { readonly kind: 'local' }
  | {
      readonly kind: 'sftp'
      readonly host: string
      readonly port: number
      readonly username: string
      /** The folder repositories go in, on the server (absolute, or relative to the login's home). */
      readonly path: string
      /** The server's pinned host keys, `<type> <base64>` each. */
      readonly hostKeys: readonly string[]
    }
  | {
      readonly kind: 'rest'
      /** The server's URL, repositories below it (`https://backup.example.net:8000/plinth`). */
      readonly url: string
      readonly username: string | null
    }
  | {
      readonly kind: 's3'
      readonly endpoint: string
      readonly bucket: string
      /** Key prefix repositories go under (`plinth`; empty: the bucket's top). */
      readonly prefix: string
      readonly region: string | null
      readonly accessKeyId: string
    }

/** What nodes write with (`push_secrets_sealed`). */
export type PushSecrets =
  | { readonly kind: 'sftp'; readonly privateKey: string }
  | { readonly kind: 'rest'; readonly password: string | null }
  | { readonly kind: 's3'; readonly secretAccessKey: string }

/** What the panel prunes with when it differs from what nodes hold (`prune_secrets_sealed`). */
export type PruneSecrets =
  | { readonly kind: 'rest'; readonly username: string; readonly password: string }
  | { readonly kind: 's3'; readonly accessKeyId: string; readonly secretAccessKey: string }

/** A target with its secrets open, as the panel uses it for a moment and never keeps. */
export interface OpenTarget {
  readonly place: TargetPlace
  readonly push: PushSecrets | null
  readonly prune: PruneSecrets | null
}

/** The target's place and secrets, unsealed. */
export function openTarget(row: BackupTargetsTable, secrets: SecretBox): OpenTarget {
  return {
    place: placeOf(row),
    push: row.push_secrets_sealed === null ? null : JSON.parse(secrets.open(row.push_secrets_sealed)),
    prune: row.prune_secrets_sealed === null ? null : JSON.parse(secrets.open(row.prune_secrets_sealed)),
  }
}

/** The target's place (`location_json`, with its kind). */
export function placeOf(row: BackupTargetsTable): TargetPlace {
  return { ...JSON.parse(row.location_json), kind: row.kind as TargetKind } as TargetPlace
}

/** The columns a target's place and secrets are stored in. */
export function sealedColumns(
  target: OpenTarget,
  secrets: SecretBox,
): Pick<BackupTargetsTable, 'kind' | 'location_json' | 'push_secrets_sealed' | 'prune_secrets_sealed'> {
  const { kind, ...place } = target.place
  return {
    kind,
    location_json: JSON.stringify(place),
    push_secrets_sealed: target.push === null ? null : secrets.seal(JSON.stringify(target.push)),
    prune_secrets_sealed: target.prune === null ? null : secrets.seal(JSON.stringify(target.prune)),
  }
}
