// Content negotiation of /api/docs and the reference page's relative asset URLs, without a panel.

import { describe, expect, test } from 'bun:test'
import { docsAsset, docsPageHtmlFor, prefersHtml } from './docs-page.ts'

describe('prefersHtml', () => {
  test('is true for what browsers send for a page', () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(true)
  })

  test('is false for curl’s */*, a missing header and an explicit JSON preference', () => {
    expect(prefersHtml('*/*')).toBe(false)
    expect(prefersHtml(null)).toBe(false)
    expect(prefersHtml('application/json')).toBe(false)
    expect(prefersHtml('text/html;q=0.5, application/json')).toBe(false)
  })
})

describe('the reference page', () => {
  test('links its assets below the last segment of the docs path it is served at', () => {
    const resolved = (docsPath: string) =>
      [...docsPageHtmlFor(docsPath).matchAll(/\b(?:src|href)="([^"]*)"/g)].map(
        (match) => new URL(match[1] ?? '', `http://localhost${docsPath}`).pathname,
      )
    expect(resolved('/api/docs')).toEqual([
      '/api/docs/assets/swagger-ui.css',
      '/api/docs/assets/swagger-ui-bundle.js',
      '/api/docs/assets/init.js',
    ])
    expect(resolved('/reference')).toContain('/reference/assets/init.js')
  })

  test('loads the document relative to its own script, whatever the docs path', async () => {
    const script = await docsAsset('init.js')?.text()
    expect(script).toContain("new URL('../openapi.json', document.currentScript.src)")
    expect(script).not.toMatch(/https?:/)
  })

  test('has no asset outside the ones it names', () => {
    expect(docsAsset('package.json')).toBeNull()
    expect(docsAsset('../package.json')).toBeNull()
  })

  test('knows no name every object inherits (constructor, __proto__ and toString once read a missing file)', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])
      expect(docsAsset(name)).toBeNull()
  })
})
