// Web routes: plugins serve browsers beside the API, never in its place. Exact paths before prefixes, the longest
// prefix first, a declining route passes to the next, and the API, its document and /metrics are never offered.

import { describe, expect, test } from 'bun:test'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'
import { definePlugin } from './define-plugin.ts'
import type { WebRoute } from './web-route.ts'
import { webRoutePathProblem } from './web-route.ts'

const text = (body: string) => new Response(body, { headers: { 'content-type': 'text/plain' } })

const webPlugin = (routes: readonly WebRoute[]) =>
  definePlugin({
    name: 'web',
    version: '1.0.0',
    description: 'Web routes for the test.',
    webRoutes: () => routes,
  })

describe('web routes', () => {
  test('exact paths win over prefixes, longer prefixes over shorter, and a null answer passes on', async () => {
    const tp = await createKernelTestPanel({
      plugins: [
        webPlugin([
          {
            path: '/*',
            answer: (request) =>
              ['/declined', '/'].includes(new URL(request.url).pathname) ? null : text('any'),
          },
          { path: '/static/*', answer: () => text('static') },
          { path: '/static/exact', answer: () => text('exact') },
          {
            path: '/',
            answer: (request) => (request.headers.get('accept') === 'text/html' ? text('page') : null),
          },
        ]),
      ],
    })
    const get = async (path: string, accept = 'text/html') => {
      const response = await tp.panel.handle(new Request(`http://panel.test${path}`, { headers: { accept } }))
      return { status: response.status, body: await response.text() }
    }
    expect(await get('/static/exact')).toEqual({ status: 200, body: 'exact' })
    expect(await get('/static/other.js')).toEqual({ status: 200, body: 'static' })
    expect(await get('/some/deep/link')).toEqual({ status: 200, body: 'any' })
    expect((await get('/declined')).status).toBe(404)
    expect(await get('/')).toEqual({ status: 200, body: 'page' })
    // Declined at `/` by both: the kernel's index for scripts.
    expect(JSON.parse((await get('/', 'application/json')).body).api).toBe('/api/v1')
  })

  test('the API, its document and /metrics are never offered to web routes', async () => {
    const tp = await createKernelTestPanel({
      plugins: [webPlugin([{ path: '/*', answer: () => text('taken') }])],
    })
    for (const path of ['/api/v1/nothing-here', '/api/v1', '/api/docs/nothing', '/metrics/x']) {
      const response = await tp.panel.handle(
        new Request(`http://panel.test${path}`, { headers: { accept: 'text/html' } }),
      )
      expect({ path, body: await response.text() }).not.toEqual({ path, body: 'taken' })
    }
    const post = await tp.panel.handle(new Request('http://panel.test/somewhere', { method: 'POST' }))
    expect(post.status).toBe(404)
  })

  test('a malformed path stops the start-up, naming the plugin', async () => {
    expect(webRoutePathProblem('/assets/*')).toBeNull()
    expect(webRoutePathProblem('assets')).toBe('must start with /')
    expect(webRoutePathProblem('/pages/:id')).toBe('takes no parameters')
    expect(webRoutePathProblem('/a*')).toBe("may end in '/*' only")
    expect(webRoutePathProblem('/*/x')).toBe("may end in '/*' only")
    await expect(
      createKernelTestPanel({ plugins: [webPlugin([{ path: '/pages/:id', answer: () => null }])] }),
    ).rejects.toThrow('plugin web: web route /pages/:id takes no parameters')
  })
})
