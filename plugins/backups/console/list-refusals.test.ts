import { expect, test } from 'bun:test'
import { listRefusals } from './list-refusals.ts'

const paths = ['/htdocs/a', '/../etc']
const named = (index: number) => paths[index] ?? `Item ${index + 1}`

test('a refusal of the list and of each item, by either notation, each said with its item', () => {
  const errors = [
    { location: 'body.files', message: 'The backup holds no files.' },
    { location: 'body.files.1', message: 'Not a path of the site.' },
    { location: 'body.files[0]', message: 'Not in the backup.' },
    { location: 'body.filesystem', message: 'Another field.' },
    { location: 'body.databases[0]', message: 'Another list.' },
    { location: 'body.files.1.x', message: 'Deeper than an item.' },
  ]
  expect(listRefusals(errors, 'files', named)).toEqual([
    'The backup holds no files.',
    '/../etc: Not a path of the site.',
    '/htdocs/a: Not in the backup.',
  ])
  expect(listRefusals([], 'files', named)).toEqual([])
})
