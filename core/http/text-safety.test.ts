// NUL and lone surrogates are refused where they arrive, since the store would keep them altered or as sent.

import { describe, expect, test } from 'bun:test'
import { unstorableQueryItems, unstorableTextItems } from './text-safety.ts'

describe('unstorableTextItems', () => {
  test('finds NUL and unpaired surrogates in values and keys, at their location', () => {
    const body = JSON.parse(
      '{"name":"Sec\\ud800x","tags":["ok","a\\u0000b"],"nested":{"\\udc00":1},"pair":"\\ud83d\\ude00"}',
    )
    expect(unstorableTextItems(body, 'body')).toEqual([
      { location: 'body.name', message: expect.any(String), code: 'invalid_characters' },
      { location: 'body.tags.1', message: expect.any(String), code: 'invalid_characters' },
      { location: 'body.nested.\udc00', message: expect.any(String), code: 'invalid_characters' },
    ])
  })
})

describe('unstorableQueryItems', () => {
  test('finds escapes that are not UTF-8 or decode to NUL, and passes everything else', () => {
    expect(unstorableQueryItems('http://x/a?name=%ED%A0%80&b=%00&c=%C3%A9&d=plain')).toEqual([
      { location: 'query.name', message: expect.any(String), code: 'invalid_characters' },
      { location: 'query.b', message: expect.any(String), code: 'invalid_characters' },
    ])
    expect(unstorableQueryItems('http://x/a?c=%C3%A9')).toEqual([])
    expect(unstorableQueryItems('http://x/a')).toEqual([])
  })
})
