// The files plugin's API shapes: a site path, an entry, a page of a directory, and the bodies of the changes.

import { t } from '../../core/index.ts'

/** A site path as the API takes it. */
export const SitePathField = (description: string) =>
  t.String({
    minLength: 1,
    maxLength: 4096,
    description: `${description} A site path: \`/\` is the site’s home.`,
  })

export const SiteFile = t.Object(
  {
    path: t.String({ description: 'Its site path: `/htdocs/index.php`.' }),
    name: t.String({ description: 'The last component of its path (empty for `/`).' }),
    type: t.Union([t.Literal('file'), t.Literal('directory'), t.Literal('link'), t.Literal('other')], {
      description:
        '`link`: a symbolic link, shown as itself (never followed); `other`: a FIFO, socket or device, which is neither read nor written.',
    }),
    size: t.Integer({ description: 'Bytes (a link’s: of its target’s name).' }),
    mode: t.String({ description: 'Permission bits in octal: `0644`.' }),
    modifiedAt: t.String({ format: 'date-time' }),
    target: t.Union([t.String(), t.Null()], {
      description: 'Where a link points, as written in it; null otherwise.',
    }),
    etag: t.Union([t.String(), t.Null()], {
      description:
        'A file’s entity tag: send it as `If-Match` when writing, so a save never overwrites another’s.',
    }),
  },
  { $id: 'SiteFile' },
)

export const MakeDirectoryBody = t.Object(
  {
    path: SitePathField('The directory to make.'),
    parents: t.Optional(
      t.Boolean({
        description: 'Make missing parents too, and succeed when it exists already. Default false.',
      }),
    ),
  },
  { $id: 'MakeDirectoryBody' },
)

export const MoveFileBody = t.Object(
  {
    from: SitePathField('What to move or copy (a link is moved or copied as a link).'),
    to: SitePathField('Its new path (not into it: the whole new path).'),
    overwrite: t.Optional(
      t.Boolean({ description: 'Replace a file or link at `to` (never a directory). Default false: 409.' }),
    ),
  },
  { $id: 'MoveFileBody' },
)

export const DeleteFilesBody = t.Object(
  {
    paths: t.Array(SitePathField('A file, link or directory (with everything in it) to delete.'), {
      minItems: 1,
      maxItems: 100,
      description: 'Every path is checked before any is deleted: one refused path deletes nothing.',
    }),
  },
  { $id: 'DeleteFilesBody' },
)

export const DeletedFiles = t.Object(
  {
    removed: t.Array(t.String(), { description: 'The paths deleted.' }),
    missing: t.Array(t.String(), { description: 'The paths there was nothing at (already gone).' }),
  },
  { $id: 'DeletedFiles' },
)

export const ChangeModeBody = t.Object(
  {
    path: SitePathField('The file or directory (never a link).'),
    mode: t.String({ maxLength: 4, description: 'Three octal digits, optionally after a 0: `0644`, `755`.' }),
  },
  { $id: 'ChangeModeBody' },
)

export const DownloadLinkBody = t.Object(
  { path: SitePathField('The file to download.') },
  { $id: 'DownloadLinkBody' },
)

export const DownloadLink = t.Object(
  {
    url: t.String({ description: 'Where to download it: no credential needed, valid until `expiresAt`.' }),
    expiresAt: t.String({ format: 'date-time' }),
  },
  { $id: 'DownloadLink' },
)
