// The console mounted in an Elysia app under a path: the page names its assets and the API under that path, and
// the app serves them (Elysia strips the prefix before the panel sees a request).

import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { consolePlugin } from '../../plugins/console/index.ts'
import { createTestPanel } from '../testing/index.ts'
import { mountPanel } from './mount.ts'

const navigation = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

describe('mounted under a path', () => {
  test('the page names its assets and the API under the public path; the mounted app serves them', async () => {
    const mounted = await createTestPanel({
      standard: false,
      plugins: [consolePlugin({ publicPath: '/panel/' })],
    })
    const app = mountPanel(
      new Elysia().get('/', () => 'the shop'),
      mounted.panel,
      '/panel',
    )
    const page = await app.handle(new Request('http://shop.test/panel/sites/site_1', { headers: navigation }))
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('<meta name="plinth-api-base" content="/panel/api/v1">')
    expect(html).toContain('<meta name="plinth-public-path" content="/panel/">')
    const script = html.match(/src="(\/panel\/assets\/[^"]+\.js)"/)?.[1] as string
    const asset = await app.handle(new Request(`http://shop.test${script}`))
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await (await app.handle(new Request('http://shop.test/'))).text()).toBe('the shop')
    await mounted.panel.close()
  })
})
