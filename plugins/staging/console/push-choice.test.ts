import { describe, expect, test } from 'bun:test'
import { pushBody, pushPreview } from './push-choice.ts'

describe('a push as the console chooses it', () => {
  test('sends all, none or the listed paths and tables (one a line or comma-separated, blanks dropped)', () => {
    expect(pushBody({ files: 'all', paths: 'ignored', tables: 'none', tableNames: 'ignored' })).toEqual({
      files: true,
      tables: false,
    })
    expect(
      pushBody({
        files: 'paths',
        paths: ' /htdocs/a \n\n/htdocs/b',
        tables: 'listed',
        tableNames: 'wp_posts, wp_postmeta\n',
      }),
    ).toEqual({ files: ['/htdocs/a', '/htdocs/b'], tables: ['wp_posts', 'wp_postmeta'] })
  })

  test('says what will change on the live site before it is confirmed', () => {
    const said = pushPreview(
      { files: 'paths', paths: '/htdocs/wp-content/themes/shop', tables: 'listed', tableNames: 'wp_posts' },
      'shop.example',
      'staging.shop.example',
    )
    expect(said).toEqual([
      'A backup of shop.example is taken first: the undo restores it.',
      'These paths of shop.example become the staging copy’s: /htdocs/wp-content/themes/shop.',
      'These tables of shop.example are replaced by the staging copy’s: wp_posts; the others are left.',
      'Addresses of staging.shop.example in what is pushed become shop.example’s.',
    ])
    expect(
      pushPreview({ files: 'none', paths: '', tables: 'none', tableNames: '' }, 'a.example', 'b.example'),
    ).toEqual([
      'A backup of a.example is taken first: the undo restores it.',
      'The files of a.example are left as they are.',
      'The database of a.example is left as it is.',
    ])
  })
})
