import { expect, test } from 'bun:test'
import { type RestoreChoice, restoreBody, restorePreview, undoBody } from './restore-choice.ts'

const contents = {
  files: { count: 1234, bytes: 5_000_000 },
  databases: [
    { databaseId: 'db_wp', name: 'acme_wp', engine: 'mariadb' as const, bytes: 1000, tables: 12 },
    { databaseId: 'db_shop', name: 'acme_shop', engine: 'postgresql' as const, bytes: 1000, tables: 1 },
  ],
  record: true,
}
const subject = { domain: 'example.com', takenAt: '28 Nov 2026, 03:00', contents }
const choice = (over: Partial<RestoreChoice>): RestoreChoice => ({
  what: 'everything',
  paths: null,
  databaseIds: [],
  newSite: null,
  ...over,
})

test('everything replaces all files and loads every database, after a pre-restore backup', () => {
  expect(restoreBody(choice({}))).toEqual({ files: true, databases: true })
  expect(restorePreview(choice({}), subject)).toEqual([
    'Replaces all files of example.com with those of 28 Nov 2026, 03:00 (1,234 files); files added since are removed.',
    'Loads database acme_wp (12 tables) as it was on 28 Nov 2026, 03:00, replacing what it holds now.',
    'Loads database acme_shop (1 table) as it was on 28 Nov 2026, 03:00, replacing what it holds now.',
    'A pre-restore backup of example.com is taken first, and can be restored to undo this.',
  ])
})

test('chosen paths replace only themselves and leave the databases', () => {
  const paths = choice({ what: 'files', paths: ['/htdocs/wp-content/uploads'] })
  expect(restoreBody(paths)).toEqual({ files: ['/htdocs/wp-content/uploads'] })
  const preview = restorePreview(paths, subject)
  expect(preview[0]).toContain('Replaces /htdocs/wp-content/uploads of example.com')
  expect(preview).toContain('Leaves the other files of example.com as they are.')
  expect(preview).toContain('Leaves the databases of example.com as they are.')
  expect(restoreBody(choice({ what: 'files' }))).toEqual({ files: true })
})

test('chosen databases load only those, and leave the files', () => {
  const one = choice({ what: 'databases', databaseIds: ['db_shop'] })
  expect(restoreBody(one)).toEqual({ databases: ['db_shop'] })
  const preview = restorePreview(one, subject)
  expect(preview[0]).toBe('Leaves the files of example.com as they are.')
  expect(preview.join('\n')).toContain('acme_shop (1 table)')
  expect(preview.join('\n')).not.toContain('acme_wp')
})

test('into a new site names it and its node, changes nothing of the site, and takes no pre-restore backup', () => {
  const clone = choice({ newSite: { domain: 'copy.example.com', nodeId: 'node_2', nodeName: 'second' } })
  expect(restoreBody(clone)).toEqual({
    files: true,
    databases: true,
    into: { newSite: { domain: 'copy.example.com', nodeId: 'node_2' } },
  })
  const preview = restorePreview(clone, subject)
  expect(preview[0]).toContain('Creates a new site copy.example.com')
  expect(preview[0]).toContain('on node second')
  expect(preview[1]).toContain('Replaces all files of copy.example.com')
  expect(preview.at(-1)).toContain('no pre-restore backup')
  expect(restoreBody(choice({ newSite: { domain: 'c.example.com' } })).into).toEqual({
    newSite: { domain: 'c.example.com' },
  })
})

test('undoing a restore restores the same parts, into the same site', () => {
  expect(undoBody({ files: ['/htdocs/a'] })).toEqual({ files: ['/htdocs/a'] })
  expect(undoBody({ files: true, databases: true })).toEqual({ files: true, databases: true })
  expect(undoBody({ databases: ['db_1'], into: { newSite: { domain: 'x.example.com' } } })).toEqual({
    databases: ['db_1'],
  })
})

test('a backup without files or databases says it leaves them', () => {
  const empty = { ...subject, contents: { files: null, databases: [], record: true } }
  const preview = restorePreview(choice({}), empty)
  expect(preview[0]).toContain('holds no files')
  expect(preview[1]).toContain('holds no database')
})
