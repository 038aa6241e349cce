// Failures as an anonymous client meets them over real HTTP: never Bun's development error page (it names the
// working directory and source paths), always problem+json that names nothing internal.

import { afterAll, expect, test } from 'bun:test'
import type { Panel } from '../../core/host.ts'
import { createProcessTracker } from '../testing/index.ts'
import { servePanel } from './serve.ts'

const { tempDataDir, startStandalone, cleanup } = createProcessTracker('plinth-failures-')
afterAll(cleanup)

test('names every object inherits are unknown assets of the reference page: 404 problem+json', async () => {
  const server = await startStandalone(tempDataDir())
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const response = await fetch(`${server.url}/api/docs/assets/${name}`)
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    const body = await response.text()
    expect(body).not.toContain(process.cwd())
    expect(body).not.toContain('.ts')
  }
})

test('a failure after the panel answered (a body that cannot be read) is a 500 problem+json naming nothing', async () => {
  const broken = {
    limits: { bodyBytes: 1024 },
    handle: async () => new Response(Bun.file('/nonexistent/plinth/secret-path.txt')),
    drain: async () => {},
    close: async () => {},
  } as unknown as Panel
  const server = servePanel(broken, { hostname: '127.0.0.1', port: 0 })
  try {
    const response = await fetch(new URL('/anything', server.url))
    expect(response.status).toBe(500)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
    const body = await response.text()
    expect(JSON.parse(body)).toMatchObject({ status: 500, code: 'internal_error' })
    expect(body).not.toContain('secret-path')
    expect(body).not.toContain(process.cwd())
  } finally {
    await server.stop()
  }
})
