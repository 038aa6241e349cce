// A `php` site's staging copy and its push to live, on a real node (nginx, PHP-FPM, restic into a local target): the
// php plugin's restore adapter copies the files and serves the copy from the live site's document root (a folder of
// htdocs/); a file changed on staging is carried to live by a push of files; the push's undo puts live back. Node
// side: run once (scripts/run-tests.ts, `plugins/php/**/*.e2e.test.ts`).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { requestSite, startWordPressPanel, type WordPressPanel, waitFor } from '../../hosts/testing/index.ts'
import { backupsPlugin } from '../backups/index.ts'

const tag = crypto.randomUUID().slice(0, 8)
let wp: WordPressPanel
let customerId: string

const call = (method: string, path: string, body?: unknown) =>
  wp.tp.request(method, `/api/v1${path}`, { token: wp.token, ...(body === undefined ? {} : { body }) })

interface Job {
  status: string
  result: Record<string, unknown> | null
  error: { code: string; message: string } | null
}
async function jobEnded(jobId: string): Promise<Job> {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await (await call('GET', `/jobs/${jobId}`)).json()) as Job
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await Bun.sleep(100)
      return null
    },
    60_000,
  )
}

/** Writes a file of the site through the files API (raw bytes). */
async function putFile(siteId: string, path: string, content: string) {
  const response = await wp.tp.panel.handle(
    new Request(`http://panel.test/api/v1/sites/${siteId}/files/content?path=${encodeURIComponent(path)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${wp.token}`, 'content-type': 'application/octet-stream' },
      body: content,
    }),
  )
  expect([200, 201]).toContain(response.status)
}

const page = async (domain: string, path = '/') => (await requestSite(wp.httpPort, domain, path)).text()

beforeAll(async () => {
  wp = await startWordPressPanel({
    prefix: 'plinth-php-staging-',
    tag,
    plugins: [backupsPlugin({ verify: { readDataPercent: 1, sampleFiles: 1 } })],
  })
  expect(
    (await call('POST', '/backup-targets', { name: `local-${tag}`, kind: 'local', default: true })).status,
  ).toBe(201)
  customerId = ((await (await call('POST', '/customers', { name: 'PHP Staging' })).json()) as { id: string })
    .id
}, 120_000)
afterAll(async () => {
  await wp?.close()
}, 60_000)

describe('a php site’s staging copy', () => {
  test('serves the live site’s files from its document root; a push carries a changed file; undo puts it back', async () => {
    const liveDomain = `app-${tag}.example.test`
    const created = await call('POST', '/sites', {
      customerId,
      name: 'App',
      type: 'php',
      domain: liveDomain,
      php: { root: 'public' },
    })
    expect(created.status).toBe(201)
    const live = (await created.json()) as { id: string; jobId: string }
    expect((await jobEnded(live.jobId)).status).toBe('succeeded')
    await putFile(live.id, '/htdocs/public/index.php', `<?php echo "live ${tag} on ", $_SERVER['HTTP_HOST'];`)
    expect(await page(liveDomain)).toBe(`live ${tag} on ${liveDomain}`)

    const made = await call('POST', `/sites/${live.id}/staging`, {})
    expect(made.status).toBe(202)
    const { jobId, site } = (await made.json()) as { jobId: string; site: { id: string; domain: string } }
    expect(await jobEnded(jobId)).toMatchObject({ status: 'succeeded' })
    // Its root is the live site's (set after the copy, carried by a site.update job).
    await waitFor('the staging copy served from public/', async () => {
      const text = await page(site.domain)
      if (text !== `live ${tag} on ${site.domain}`) await Bun.sleep(100)
      return text === `live ${tag} on ${site.domain}` || null
    })

    await putFile(
      site.id,
      '/htdocs/public/index.php',
      `<?php echo "changed ${tag} on ", $_SERVER['HTTP_HOST'];`,
    )
    const pushed = await call('POST', `/sites/${site.id}/push`, { files: true })
    expect(pushed.status).toBe(202)
    const push = await jobEnded(((await pushed.json()) as { jobId: string }).jobId)
    expect(push).toMatchObject({ status: 'succeeded', result: { databases: [] } })
    expect(await page(liveDomain)).toBe(`changed ${tag} on ${liveDomain}`)

    const undo = push.result?.undo as { path: string; body: unknown }
    const undone = await call('POST', undo.path.replace('/api/v1', ''), undo.body)
    expect(undone.status).toBe(202)
    expect((await jobEnded(((await undone.json()) as { jobId: string }).jobId)).status).toBe('succeeded')
    expect(await page(liveDomain)).toBe(`live ${tag} on ${liveDomain}`)
  }, 120_000)
})
