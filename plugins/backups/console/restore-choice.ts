// A restore as the form chooses it, the body it sends, and what it will change said in words before it is confirmed:
// a restore replaces what is there, so nobody should start one without reading exactly what it replaces.

import type { Schemas } from './api.ts'

type RestoreRequest = Schemas['RestoreRequest']
type Contents = NonNullable<Schemas['Backup']['contents']>

/** What of the backup goes back. */
export type RestoreWhat = 'everything' | 'files' | 'databases'

export interface RestoreChoice {
  readonly what: RestoreWhat
  /** With `files`: the paths (as the files API names them) that go back; null: all the site's files. */
  readonly paths: readonly string[] | null
  /** With `databases`: the ids of those that go back. */
  readonly databaseIds: readonly string[]
  /** Into a new site (a clone) instead of the backup's own site; `nodeName` only says where, for the preview. */
  readonly newSite: { readonly domain: string; readonly nodeId?: string; readonly nodeName?: string } | null
}

/** The body of `POST …/backups/{backupId}/restore` for `choice`. */
export function restoreBody(choice: RestoreChoice): RestoreRequest {
  const body: RestoreRequest =
    choice.what === 'everything'
      ? { files: true, databases: true }
      : choice.what === 'files'
        ? { files: choice.paths === null ? true : [...choice.paths] }
        : { databases: [...choice.databaseIds] }
  if (choice.newSite)
    body.into = {
      newSite: {
        domain: choice.newSite.domain,
        ...(choice.newSite.nodeId ? { nodeId: choice.newSite.nodeId } : {}),
      },
    }
  return body
}

/** The restore that undoes one: the same parts, from the backup taken before it, into the same site. */
export function undoBody(done: RestoreRequest): RestoreRequest {
  return {
    ...(done.files !== undefined ? { files: done.files } : {}),
    ...(done.databases !== undefined ? { databases: done.databases } : {}),
  }
}

/** What the preview speaks of: the site restored from, when the backup was taken (as words) and what it holds. */
export interface PreviewSubject {
  readonly domain: string
  readonly takenAt: string
  readonly contents: Contents
}

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString()} ${count === 1 ? one : many}`

const tablesOf = (database: Contents['databases'][number]) => plural(database.tables, 'table', 'tables')

/** The sentences that say what `choice` will change, in order, ending with how it can be undone. */
export function restorePreview(
  choice: RestoreChoice,
  { domain, takenAt, contents }: PreviewSubject,
): string[] {
  const into = choice.newSite
  const site = into ? into.domain : domain
  const lines: string[] = []
  if (into)
    lines.push(
      `Creates a new site ${into.domain} for the same customer, of the same type as ${domain}, ${
        into.nodeName ? `on node ${into.nodeName}` : 'on the node new sites are placed on'
      }, from the backup of ${takenAt}. ${domain} itself is not changed.`,
    )
  const files = choice.what === 'everything' || (choice.what === 'files' && choice.paths === null)
  if (files) {
    lines.push(
      contents.files
        ? `Replaces all files of ${site} with those of ${takenAt} (${plural(contents.files.count, 'file', 'files')}); files added since are removed.`
        : `The backup of ${takenAt} holds no files: the files of ${site} are left as they are.`,
    )
  } else if (choice.what === 'files' && choice.paths) {
    for (const path of choice.paths)
      lines.push(
        `Replaces ${path} of ${site} with the backup’s ${path} of ${takenAt}; what was added there since is removed.`,
      )
    lines.push(`Leaves the other files of ${site} as they are.`)
  } else lines.push(`Leaves the files of ${site} as they are.`)

  const databases =
    choice.what === 'everything'
      ? contents.databases
      : choice.what === 'databases'
        ? contents.databases.filter((database) => choice.databaseIds.includes(database.databaseId))
        : []
  for (const database of databases)
    lines.push(
      into
        ? `Loads database ${database.name} (${tablesOf(database)}) of ${takenAt} into the new site’s database.`
        : `Loads database ${database.name} (${tablesOf(database)}) as it was on ${takenAt}, replacing what it holds now.`,
    )
  if (databases.length === 0)
    lines.push(
      choice.what === 'files' || contents.databases.length > 0
        ? `Leaves the databases of ${site} as they are.`
        : `The backup holds no database: the databases of ${site} are left as they are.`,
    )
  lines.push(
    into
      ? `Nothing of ${domain} is replaced, so no pre-restore backup is needed: delete the new site to undo this.`
      : `A pre-restore backup of ${domain} is taken first, and can be restored to undo this.`,
  )
  return lines
}
