// Site handles: derived from names, safe as system names, made unique with a numbered suffix.

import { describe, expect, test } from 'bun:test'
import { baseHandle, firstFreeHandle, handleMaxLength } from './handle.ts'

describe('baseHandle', () => {
  test('slugs the name', () => {
    expect(baseHandle('My Blog!')).toBe('my-blog')
    expect(baseHandle('Ça va')).toBe('ca-va')
  })

  test('starts with a letter', () => {
    expect(baseHandle('2024 Shop')).toBe('s-2024-shop')
    expect(baseHandle('日本')).toBe('site')
  })

  test('fits the length limit without a trailing hyphen', () => {
    const handle = baseHandle('a very long site name that goes on and on')
    expect(handle.length).toBeLessThanOrEqual(handleMaxLength)
    expect(handle).not.toEndWith('-')
  })
})

describe('firstFreeHandle', () => {
  test('numbers a taken handle and keeps it within the limit', () => {
    expect(firstFreeHandle('blog', new Set())).toBe('blog')
    expect(firstFreeHandle('blog', new Set(['blog', 'blog-2']))).toBe('blog-3')
    const long = 'a'.repeat(handleMaxLength)
    expect(firstFreeHandle(long, new Set([long]))).toBe(`${'a'.repeat(handleMaxLength - 2)}-2`)
  })
})
