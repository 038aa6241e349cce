// The console as the panel serves it, spoken to as a browser and as a script would: the page for navigations with
// a strict Content-Security-Policy and no inline script, hashed assets cached for ever and gzipped, deep links,
// and nothing taken from the API (scripts still get JSON at `/`, API misses stay problem+json).

import { beforeAll, describe, expect, test } from 'bun:test'
import { createTestPanel, type TestPanel } from '../../hosts/testing/index.ts'

const navigation = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'accept-encoding': 'gzip, br' }

let tp: TestPanel
beforeAll(async () => {
  tp = await createTestPanel()
})

const get = (path: string, headers: Record<string, string> = {}) =>
  tp.panel.handle(new Request(`http://panel.test${path}`, { headers }))

/** The page's HTML, unzipped when the answer was gzipped. */
async function htmlOf(response: Response): Promise<string> {
  const bytes = new Uint8Array(await response.arrayBuffer())
  return response.headers.get('content-encoding') === 'gzip'
    ? new TextDecoder().decode(Bun.gunzipSync(bytes))
    : new TextDecoder().decode(bytes)
}

describe('the page', () => {
  test('a browser at / gets the app with a strict CSP and no inline script', async () => {
    const response = await get('/', navigation)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = response.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toContain("object-src 'none'")
    expect(csp).not.toContain('unsafe-eval')
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    const html = await htmlOf(response)
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBe(1)
    // The one script is external: nothing between its tags.
    expect(scripts[0]?.[2]).toBe('')
    expect(scripts[0]?.[1]).toMatch(/src="\/assets\/main-[a-z0-9]+\.js"/)
    expect(html).toContain('<meta name="plinth-api-base" content="/api/v1">')
  })

  test('a deep link reloaded in the browser gets the same page', async () => {
    const root = await htmlOf(await get('/', navigation))
    for (const path of [
      '/sites/site_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
      '/customers',
      '/sites/x/files?path=/htdocs',
    ]) {
      const response = await get(path, navigation)
      expect({ path, status: response.status }).toEqual({ path, status: 200 })
      expect(await htmlOf(response)).toBe(root)
    }
  })

  test('scripts keep the JSON index at / and problem+json for unknown paths', async () => {
    const index = await get('/', { accept: '*/*' })
    expect(index.headers.get('content-type')).toBe('application/json')
    expect((await index.json()).api).toBe('/api/v1')
    const miss = await get('/no-such-page', { accept: 'application/json' })
    expect(miss.status).toBe(404)
    expect(miss.headers.get('content-type')).toBe('application/problem+json')
  })

  test('the API and its document are never answered by the app, even for a browser', async () => {
    const miss = await get('/api/v1/no-such-thing', navigation)
    expect(miss.status).toBe(404)
    expect(miss.headers.get('content-type')).toBe('application/problem+json')
    const docs = await get('/api/docs', navigation)
    expect(await docs.text()).toContain('swagger-ui')
    const wrongMethod = await get('/api/v1/auth/login', navigation)
    expect(wrongMethod.status).toBe(405)
  })

  test('a path with a file extension is not a page', async () => {
    const response = await get('/favicon.ico', navigation)
    expect(response.status).toBe(404)
  })
})

describe('assets', () => {
  const assetPaths = async () => {
    const html = await htmlOf(await get('/', navigation))
    return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string)
  }

  test('hashed assets are served gzipped when asked, cached for ever, under the same CSP', async () => {
    const paths = await assetPaths()
    expect(paths.some((path) => path.endsWith('.js'))).toBe(true)
    expect(paths.some((path) => path.endsWith('.css'))).toBe(true)
    for (const path of paths) {
      const zipped = await get(path, { 'accept-encoding': 'gzip' })
      expect({ path, status: zipped.status }).toEqual({ path, status: 200 })
      expect(zipped.headers.get('content-encoding')).toBe('gzip')
      expect(zipped.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(zipped.headers.get('content-security-policy')).toContain("script-src 'self'")
      const plain = await get(path)
      expect(plain.headers.get('content-encoding')).toBeNull()
      const unzipped = Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer()))
      expect(new TextDecoder().decode(unzipped)).toBe(await plain.text())
    }
    const script = paths.find((path) => path.endsWith('.js')) as string
    expect((await get(script)).headers.get('content-type')).toBe('text/javascript; charset=utf-8')
  })

  test('an unknown asset is 404 problem+json, and no path climbs out of the build', async () => {
    for (const path of [
      '/assets/main-nothing.js',
      '/assets/../package.json',
      '/assets/%2e%2e/package.json',
    ]) {
      const response = await get(path, { accept: '*/*' })
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
    }
  })
})

describe('beside the app', () => {
  test('the JSON index at / varies by Accept, since browsers get the app there', async () => {
    const index = await get('/', { accept: 'application/json' })
    expect(index.headers.get('vary')).toBe('Accept')
  })

  test('the API reference page cannot be framed and runs only the panel’s own scripts', async () => {
    const docs = await get('/api/docs', navigation)
    const csp = docs.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(docs.headers.get('x-frame-options')).toBe('DENY')
  })
})
