// A real WordPress site cloned from its backup into a new site, end to end through the API: the panel's local node
// serves with this machine's nginx, PHP-FPM, Debian's WordPress and MariaDB, and backs up with restic into a local
// target. The clone gets the old site's files and posts, keeps its own wp-config.php (its own database), answers
// visitors with its own addresses, and the old site is left as it was. Node side (restic, nginx, MariaDB): run once.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Connection, RowDataPacket } from 'mysql2/promise'
import {
  startWordPressPanel,
  type TestPanel,
  type WordPressPanel,
  waitFor,
} from '../../hosts/testing/index.ts'

const tag = crypto.randomUUID().slice(0, 8)
const oldDomain = `shop-${tag}.example.test`
const newDomain = `shop-copy-${tag}.example.test`

let wp: WordPressPanel
let tp: TestPanel
let token: string
let root: Connection
let customerId = ''
let oldSite = ''
let newSite = ''

async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
  const response = await tp.request(method, `/api/v1${path}`, { token, body })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T }
}

interface Job {
  status: string
  error: { code: string; message: string } | null
}
async function finished(jobId: string): Promise<Job> {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = (await call<Job>('GET', `/jobs/${jobId}`)).body
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await Bun.sleep(100)
      return null
    },
    300_000,
  )
}

const htdocs = (siteId: string) => join(wp.sitesDir, 'sites', siteId, 'htdocs')
/** What the sites' nginx answers for `host` at `path`. */
const fromSite = (host: string, path = '/') =>
  fetch(`http://127.0.0.1:${wp.httpPort}${path}`, { redirect: 'manual', headers: { host } })

/** The real name of the WordPress database of `siteId`. */
async function databaseOf(siteId: string): Promise<string> {
  const databases = await call<{ items: { name: string; siteId: string | null }[] }>(
    'GET',
    `/databases?customerId=${customerId}`,
  )
  const name = databases.body.items.find((database) => database.siteId === siteId)?.name
  if (!name) throw new Error(`no database of ${siteId}`)
  return name
}

async function option(database: string, name: string): Promise<string | undefined> {
  const [rows] = await root.query<RowDataPacket[]>(
    `SELECT option_value FROM \`${database}\`.wp_options WHERE option_name = ?`,
    [name],
  )
  return rows[0]?.option_value as string | undefined
}

beforeAll(async () => {
  wp = await startWordPressPanel({ prefix: 'plinth-wp-clone-e2e-', tag })
  ;({ tp, token, root } = wp)
  expect(
    (await call('POST', '/backup-targets', { name: `local-${tag}`, kind: 'local', default: true })).status,
  ).toBe(201)
  customerId = (await call<{ id: string }>('POST', '/customers', { name: 'Acme' })).body.id
  oldSite = (await wp.newWordPressSite(customerId, 'Acme Shop', oldDomain)).siteId
}, 300_000)

afterAll(async () => {
  for (const siteId of [newSite, oldSite].filter(Boolean)) {
    const deleted = await call<{ jobId: string }>('DELETE', `/sites/${siteId}`).catch(() => null)
    if (deleted?.body?.jobId) await finished(deleted.body.jobId).catch(() => {})
  }
  await wp?.close()
}, 120_000)

describe('a WordPress site cloned from its backup', () => {
  test('the new site has the old one’s files and posts, its own wp-config.php and database, and its own addresses', async () => {
    const oldDatabase = await databaseOf(oldSite)
    const oldUrl = `http://${oldDomain}`
    await root.query(`UPDATE \`${oldDatabase}\`.wp_posts SET post_content = ? WHERE ID = 1`, [
      `Cloned ${tag}: <a href="${oldUrl}/about/">About</a> <img src="${oldUrl}/wp-content/uploads/logo-${tag}.txt">`,
    ])
    // An upload, as WordPress keeps them (a fresh install has no uploads folder yet).
    const uploads = join(htdocs(oldSite), 'wp-content', 'uploads')
    const owner = statSync(htdocs(oldSite))
    mkdirSync(uploads, { recursive: true })
    writeFileSync(join(uploads, `logo-${tag}.txt`), 'the logo\n')
    for (const path of [uploads, join(uploads, `logo-${tag}.txt`)]) chownSync(path, owner.uid, owner.gid)

    const taken = await call<{ jobId: string; backup: { id: string } }>('POST', `/sites/${oldSite}/backups`)
    expect(taken.status).toBe(202)
    expect(await finished(taken.body.jobId)).toMatchObject({ status: 'succeeded' })

    const started = await call<{ jobId: string; siteId: string }>(
      'POST',
      `/sites/${oldSite}/backups/${taken.body.backup.id}/restore`,
      { files: true, databases: true, into: { newSite: { domain: newDomain } } },
    )
    expect(started.status).toBe(202)
    newSite = started.body.siteId
    expect(newSite).not.toBe(oldSite)
    expect(await finished(started.body.jobId)).toMatchObject({ status: 'succeeded', error: null })

    const newDatabase = await databaseOf(newSite)
    expect(newDatabase).not.toBe(oldDatabase)
    // Its own wp-config.php, naming its own database; the old site's files.
    const config = readFileSync(join(htdocs(newSite), 'wp-config.php'), 'utf8')
    expect(config).toContain(`'${newDatabase}'`)
    expect(config).not.toContain(oldDatabase)
    expect(readFileSync(join(htdocs(newSite), 'wp-content', 'uploads', `logo-${tag}.txt`), 'utf8')).toBe(
      'the logo\n',
    )
    // The old site's posts in its own database, with its own addresses.
    const newUrl = `http://${newDomain}`
    expect(await option(newDatabase, 'home')).toBe(newUrl)
    expect(await option(newDatabase, 'siteurl')).toBe(newUrl)
    const [posts] = await root.query<RowDataPacket[]>(
      `SELECT post_content FROM \`${newDatabase}\`.wp_posts WHERE ID = 1`,
    )
    expect(posts[0]?.post_content).toBe(
      `Cloned ${tag}: <a href="${newUrl}/about/">About</a> <img src="${newUrl}/wp-content/uploads/logo-${tag}.txt">`,
    )
    // Visitors of the new site get the post and its upload at the new addresses.
    const page = await (await fromSite(newDomain, '/?p=1')).text()
    expect(page.includes(`Cloned ${tag}`)).toBe(true)
    expect(page.includes(`href="${newUrl}/about/"`)).toBe(true)
    expect(page.includes(oldDomain)).toBe(false)
    expect(await (await fromSite(newDomain, `/wp-content/uploads/logo-${tag}.txt`)).text()).toBe('the logo\n')
    // The old site is left as it was.
    expect(await option(oldDatabase, 'home')).toBe(oldUrl)
    expect((await (await fromSite(oldDomain, '/?p=1')).text()).includes(`href="${oldUrl}/about/"`)).toBe(true)
  }, 600_000)
})
