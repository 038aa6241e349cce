// The undo a restore's result names: the same parts, from the pre-restore backup, and no database it left alone.

import { expect, test } from 'bun:test'
import { undoCall } from './restore-undo.ts'

test('a restore of one database of two is undone by restoring that database alone', () => {
  expect(undoCall('site_a', 'bkp_pre', false, ['db_one'])).toEqual({
    method: 'POST',
    path: '/api/v1/sites/site_a/backups/bkp_pre/restore',
    body: { files: false, databases: ['db_one'] },
  })
})

test('files only leave the databases out of the undo; paths are undone as they were restored', () => {
  expect(undoCall('site_a', 'bkp_pre', ['/htdocs/a'], [])?.body).toEqual({
    files: ['/htdocs/a'],
    databases: false,
  })
  expect(undoCall('site_a', 'bkp_pre', true, ['db_one', 'db_two'])?.body).toEqual({
    files: true,
    databases: ['db_one', 'db_two'],
  })
})

test('a clone has no undo', () => {
  expect(undoCall('site_b', null, true, ['db_one'])).toBeNull()
})
