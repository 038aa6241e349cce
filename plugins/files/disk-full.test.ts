// A site's disk full as the kernel says it: a 4 MiB ext4 image on a loop device mounted in a site's `htdocs/small`
// (as a node that gives each site its own filesystem would), and every way the files API writes (content, a
// resumable upload, a copy, a new folder, an extraction, an archive) pushed past it. The kernel refuses the write
// (ENOSPC), never the panel's own count (the site has no quota of its own, so the count allows it): the answer is
// 422 `disk_quota_exceeded` at the field that would have grown, and nothing is left behind, a replaced file intact.
// The loop mount is node-wide: this runs once, whatever the panel's store (scripts/run-tests.ts).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { endServingPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'
import { filesTestFolder, startFilesPanel } from './testing/local-files-panel.ts'

const { folder, nodeDir } = filesTestFolder('plinth-files-full-')
const image = join(folder, 'small.ext4')
const megabyte = 1024 * 1024

let tp: TestPanel
let staff: string
let site: Site
let small: string
let mounted = false

const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  tp.panel.handle(
    new Request(`http://panel.test/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${staff}`,
        ...(body === undefined || body instanceof Uint8Array ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined
        ? {}
        : { body: body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body) }),
    }),
  )

const write = (path: string, bytes: Uint8Array, headers: Record<string, string> = {}) =>
  api('PUT', `/sites/${site.id}/files/content?path=${encodeURIComponent(path)}`, bytes, {
    'content-type': 'application/octet-stream',
    ...headers,
  })

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return JSON.parse(text) as T
}

/** Checks the answer is the quota's refusal, pointing at `location`. */
async function refusedForRoom(response: Response, location: string): Promise<void> {
  expect(response.headers.get('content-type')).toContain('application/problem+json')
  const problem = await json<{ code: string; errors?: { location: string; code: string }[] }>(response, 422)
  expect(problem.code).toBe('disk_quota_exceeded')
  expect(problem.errors).toEqual([expect.objectContaining({ location, code: 'disk_quota_exceeded' })])
}

/** The job's error once it has finished. */
async function jobError(response: Response): Promise<{ code: string } | null> {
  const { jobId } = await json<{ jobId: string }>(response, 202)
  const job = await waitFor(
    `job ${jobId}`,
    async () => {
      const now = await json<{ finishedAt: string | null; error: { code: string } | null }>(
        await api('GET', `/jobs/${jobId}`),
        200,
      )
      if (now.finishedAt === null) await Bun.sleep(50)
      return now.finishedAt === null ? null : now
    },
    60_000,
  )
  return job.error
}

/** What is in the small filesystem, but for what mkfs put there. */
const inSmall = () =>
  readdirSync(small)
    .filter((name) => name !== 'lost+found')
    .sort()

function run(argv: string[]): string {
  const done = Bun.spawnSync(argv)
  if (done.exitCode !== 0) throw new Error(`${argv.join(' ')}: ${done.stderr.toString()}`)
  return done.stdout.toString()
}

async function newSite(customerId: string, domain: string): Promise<Site> {
  const created = await json<Site>(
    await api('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain }),
    201,
  )
  return waitFor(
    `site ${domain}`,
    async () => {
      const now = await json<Site>(await api('GET', `/sites/${created.id}`), 200)
      if (now.status !== 'active') await Bun.sleep(50)
      return now.status === 'active' ? now : null
    },
    30_000,
  )
}

beforeAll(async () => {
  tp = await startFilesPanel(folder)
  staff = await tp.token()
  const customer = await json<{ id: string }>(await api('POST', '/customers', { name: 'Full Disk Co' }), 201)
  site = await newSite(customer.id, 'full.example.com')
  const htdocs = join(nodeDir, 'sites', site.id, 'htdocs')
  small = join(htdocs, 'small')
  run(['truncate', '-s', '4M', image])
  run(['mkfs.ext4', '-q', '-F', '-m', '0', image])
  mkdirSync(small)
  run(['mount', '-o', 'loop', image, small])
  mounted = true
  const owner = statSync(htdocs)
  chownSync(small, owner.uid, owner.gid)
}, 120_000)

afterAll(async () => {
  // The filesystem goes before the site, whose deletion would otherwise meet a mount in its home.
  if (mounted) Bun.spawnSync(['umount', small])
  await endServingPanel(tp, { token: staff, siteIds: [site?.id], nodeDir, remove: [folder] })
}, 60_000)

describe('a write past the site’s filesystem', () => {
  test('content: 422 at the body, a replaced file kept as it was, no bytes left beside it', async () => {
    await json(await write('/htdocs/small/keep.txt', new TextEncoder().encode('original')), 201)
    await refusedForRoom(await write('/htdocs/small/big.bin', new Uint8Array(5 * megabyte)), 'body')
    await refusedForRoom(
      await write('/htdocs/small/keep.txt', new Uint8Array(5 * megabyte), { 'if-match': '*' }),
      'body',
    )
    expect(readFileSync(join(small, 'keep.txt'), 'utf8')).toBe('original')
    expect(inSmall()).toEqual(['keep.txt'])
  })

  test('a resumable upload: 422, and it keeps the bytes it received, no more', async () => {
    const upload = await json<{ id: string }>(
      await api('POST', `/sites/${site.id}/files/uploads`, {
        path: '/htdocs/small/up.bin',
        size: 5 * megabyte,
      }),
      201,
    )
    const at = `/sites/${site.id}/files/uploads/${upload.id}`
    const first = await json<{ received: number }>(
      await api('PUT', at, new Uint8Array(megabyte), {
        'content-type': 'application/octet-stream',
        'upload-offset': '0',
      }),
      200,
    )
    expect(first.received).toBe(megabyte)
    await refusedForRoom(
      await api('PUT', at, new Uint8Array(4 * megabyte), {
        'content-type': 'application/octet-stream',
        'upload-offset': String(megabyte),
      }),
      'body',
    )
    expect((await json<{ received: number }>(await api('GET', at), 200)).received).toBe(megabyte)
    const held = inSmall().filter((name) => name.startsWith('.plinth-upload-'))
    expect(held).toHaveLength(1)
    expect(statSync(join(small, held[0] ?? '')).size).toBe(megabyte)
    expect((await api('DELETE', at)).status).toBe(204)
    expect(inSmall()).toEqual(['keep.txt'])
  })

  test('a copy: 422 at body.to, no half copy, and what was at `to` stays', async () => {
    await json(await write('/htdocs/five.bin', new Uint8Array(5 * megabyte)), 201)
    const copy = (to: string, overwrite = false) =>
      api('POST', `/sites/${site.id}/files/copy`, { from: '/htdocs/five.bin', to, overwrite })
    await refusedForRoom(await copy('/htdocs/small/copy.bin'), 'body.to')
    await refusedForRoom(await copy('/htdocs/small/keep.txt', true), 'body.to')
    expect(readFileSync(join(small, 'keep.txt'), 'utf8')).toBe('original')
    expect(inSmall()).toEqual(['keep.txt'])
  })

  test('a move from another filesystem (a copy, then a delete): 422 at body.to, the source kept', async () => {
    const moved = await api('POST', `/sites/${site.id}/files/move`, {
      from: '/htdocs/five.bin',
      to: '/htdocs/small/moved.bin',
    })
    await refusedForRoom(moved, 'body.to')
    expect(statSync(join(small, '..', 'five.bin')).size).toBe(5 * megabyte)
    expect(inSmall()).toEqual(['keep.txt'])
  })

  test('an archive made into it: the job fails with the code, no part left', async () => {
    await json(await api('POST', `/sites/${site.id}/files/directories`, { path: '/htdocs/src' }), 201)
    await json(await write('/htdocs/src/noise.bin', randomBytes(5 * megabyte)), 201)
    const error = await jobError(
      await api('POST', `/sites/${site.id}/files/archive`, {
        paths: ['/htdocs/src/noise.bin'],
        to: '/htdocs/small/noise.zip',
      }),
    )
    expect(error).toMatchObject({ code: 'disk_quota_exceeded' })
    expect(inSmall()).toEqual(['keep.txt'])
  })

  for (const format of ['zip', 'tar.gz'] as const)
    test(`a ${format} extracted into it: the job fails with the code, nothing extracted`, async () => {
      // Six MiB of zeros, a few KiB packed: the archive fits on the site's disk, its entries do not.
      const work = mkdtempSync(join(tmpdir(), 'plinth-files-full-archive-'))
      try {
        run(['dd', 'if=/dev/zero', `of=${join(work, 'zeros')}`, 'bs=1M', 'count=6', 'status=none'])
        const name = `zeros.${format}`
        if (format === 'zip') Bun.spawnSync(['zip', '-q', name, 'zeros'], { cwd: work })
        else Bun.spawnSync(['tar', '-czf', name, 'zeros'], { cwd: work })
        await json(await write(`/htdocs/${name}`, readFileSync(join(work, name))), 201)
        const error = await jobError(
          await api('POST', `/sites/${site.id}/files/extract`, {
            path: `/htdocs/${name}`,
            to: '/htdocs/small/unpacked',
          }),
        )
        expect(error).toMatchObject({ code: 'disk_quota_exceeded' })
        expect(inSmall()).toEqual(['keep.txt'])
      } finally {
        rmSync(work, { recursive: true, force: true })
      }
    })

  test('a new folder on a full disk: 422 at body.path, nothing made', async () => {
    // Filled to the last byte as the site's own code could fill it: large blocks, then what they left.
    const fills = ['64k', '1k', '1'].map((size) => {
      Bun.spawnSync(['dd', 'if=/dev/zero', `of=${join(small, `fill-${size}`)}`, `bs=${size}`, 'status=none'])
      return `fill-${size}`
    })
    try {
      await refusedForRoom(
        await api('POST', `/sites/${site.id}/files/directories`, { path: '/htdocs/small/new' }),
        'body.path',
      )
      await refusedForRoom(
        await api('POST', `/sites/${site.id}/files/directories`, {
          path: '/htdocs/small/a/b/c',
          parents: true,
        }),
        'body.path',
      )
      expect(inSmall()).toEqual([...fills, 'keep.txt'].sort())
    } finally {
      for (const fill of fills) rmSync(join(small, fill), { force: true })
    }
  })
})
