// A site's files through the API, against a real site on a local node that serves it (nginx, PHP-FPM, a Unix user
// per site): written files served by nginx and owned by the site's user, entity tags guarding saves, ranges,
// directories, moves, copies, deletes and modes, the disk quota, download links, tenancy and suspension, every
// change audited, and links planted to /etc/passwd, /etc and another site refused with nothing outside touched.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { endServingPanel, freePort, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'
import type { FileEntry as SiteFile } from './contract.ts'
import { filesTestFolder, startFilesPanel } from './testing/local-files-panel.ts'

const { folder, nodeDir } = filesTestFolder('plinth-files-')
const httpPort = freePort()

let tp: TestPanel
let staff: string
let site: Site
let other: Site
let home: string
let otherHome: string

const api = (
  method: string,
  path: string,
  init: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
) => tp.request(method, `/api/v1${path}`, { token: init.token ?? staff, ...init })

/** A raw request (bytes in, bytes out), as a client would send it. */
function raw(
  method: string,
  path: string,
  body?: BodyInit | null,
  headers: Record<string, string> = {},
  token = staff,
) {
  return tp.panel.handle(
    new Request(`http://panel.test/api/v1${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      ...(body === undefined ? {} : { body }),
    }),
  )
}

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return (text ? JSON.parse(text) : null) as T
}

/** The problem's code, after checking its status. */
async function problem(response: Response, status: number): Promise<Record<string, unknown>> {
  const body = await json<Record<string, unknown>>(response, status)
  expect(response.headers.get('content-type')).toContain('application/problem+json')
  return body
}

const filesOf = (siteId: string, path: string) =>
  `/sites/${siteId}/files/content?path=${encodeURIComponent(path)}`

/** Writes a file as a client does: its bytes as `application/octet-stream` (a string alone would be text/plain). */
const write = (
  siteId: string,
  path: string,
  content: BodyInit,
  headers: Record<string, string> = {},
  token = staff,
) =>
  raw(
    'PUT',
    filesOf(siteId, path),
    content,
    { 'content-type': 'application/octet-stream', ...headers },
    token,
  )

async function newSite(customerId: string, domain: string, diskMB: number | null = null): Promise<Site> {
  const created = await json<Site>(
    await api('POST', '/sites', {
      body: {
        customerId,
        name: domain,
        type: 'wordpress',
        domain,
        ...(diskMB ? { limits: { diskMB } } : {}),
      },
    }),
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
  tp = await startFilesPanel(folder, {
    files: { readLimitBytes: 8 * 1024 * 1024, uploadLimitBytes: 64 * 1024 * 1024 },
    httpPort,
  })
  staff = await tp.token()
  const customer = await json<{ id: string }>(
    await api('POST', '/customers', { body: { name: 'Files Co' } }),
    201,
  )
  const neighbour = await json<{ id: string }>(
    await api('POST', '/customers', { body: { name: 'Next Door' } }),
    201,
  )
  site = await newSite(customer.id, 'files.example.com', 20)
  other = await newSite(neighbour.id, 'next.example.com')
  home = join(nodeDir, 'sites', site.id)
  otherHome = join(nodeDir, 'sites', other.id)
}, 120_000)

afterAll(async () => {
  await endServingPanel(tp, { token: staff, siteIds: [site?.id, other?.id], nodeDir, remove: [folder] })
}, 60_000)

/** The site's answer through its node's nginx. */
const served = (path: string) =>
  fetch(`http://127.0.0.1:${httpPort}${path}`, { headers: { host: site.domain } })

describe('reading and writing', () => {
  test('the home lists its folders, not the node’s state', async () => {
    const page = await json<{ items: SiteFile[]; nextCursor: string | null }>(
      await api('GET', `/sites/${site.id}/files`),
      200,
    )
    expect(page.items.map((item) => item.name)).toEqual(['htdocs', 'logs', 'tmp'])
    expect(page.items.every((item) => item.type === 'directory')).toBe(true)
    expect(page.nextCursor).toBeNull()
  })

  test('a file written is served by the site, owned by its user, and read back with its tag', async () => {
    const response = await write(site.id, '/htdocs/hello.txt', 'Hello from the API\n')
    const entry = await json<SiteFile>(response, 201)
    expect(entry).toMatchObject({ path: '/htdocs/hello.txt', name: 'hello.txt', type: 'file', size: 19 })
    expect(response.headers.get('etag')).toBe(entry.etag)
    // A new file says where it is read, as the document requires of a 201 (it once had no Location).
    expect(response.headers.get('location')).toBe(
      `/api/v1/sites/${site.id}/files/content?path=${encodeURIComponent('/htdocs/hello.txt')}`,
    )
    const onDisk = statSync(join(home, 'htdocs', 'hello.txt'))
    expect(onDisk.uid).toBe(statSync(join(home, 'htdocs')).uid)
    expect(onDisk.uid).not.toBe(0)
    expect(await (await served('/hello.txt')).text()).toBe('Hello from the API\n')

    const read = await raw('GET', filesOf(site.id, '/htdocs/hello.txt'))
    expect(read.status).toBe(200)
    expect(read.headers.get('content-type')).toBe('application/octet-stream')
    expect(read.headers.get('content-disposition')).toStartWith('attachment')
    expect(read.headers.get('etag')).toBe(entry.etag)
    expect(await read.text()).toBe('Hello from the API\n')
    const unchanged = await raw('GET', filesOf(site.id, '/htdocs/hello.txt'), undefined, {
      'if-none-match': entry.etag ?? '',
    })
    expect(unchanged.status).toBe(304)
  })

  test('a save with a stale tag is refused and loses nothing; the current tag saves', async () => {
    const first = await json<SiteFile>(await write(site.id, '/htdocs/editor.txt', 'version 1'), 201)
    const second = await json<SiteFile>(
      await write(site.id, '/htdocs/editor.txt', 'version 2 by Ann', { 'if-match': first.etag ?? '' }),
      200,
    )
    expect(second.etag).not.toBe(first.etag)
    const refused = await write(site.id, '/htdocs/editor.txt', 'version 2 by Bob', {
      'if-match': first.etag ?? '',
    })
    // The current tag in ETag too, as on every 412 (it was only in the body).
    expect(refused.headers.get('etag')).toBe(second.etag)
    const stale = await problem(refused, 412)
    expect(stale).toMatchObject({ code: 'file_changed', etag: second.etag })
    expect(readFileSync(join(home, 'htdocs', 'editor.txt'), 'utf8')).toBe('version 2 by Ann')
    const exists = await problem(
      await write(site.id, '/htdocs/editor.txt', 'new', { 'if-none-match': '*' }),
      412,
    )
    expect(exists.code).toBe('file_changed')
    // A replaced file keeps its mode.
    chmodSync(join(home, 'htdocs', 'editor.txt'), 0o600)
    await json<SiteFile>(await write(site.id, '/htdocs/editor.txt', 'version 3', { 'if-match': '*' }), 200)
    expect(statSync(join(home, 'htdocs', 'editor.txt')).mode & 0o777).toBe(0o600)
  })

  test('a body sent as anything but application/octet-stream is 415 and writes nothing; one without a type is bytes', async () => {
    // Found by outside clients: a form or JSON body was stored as the file.
    for (const type of [
      'application/x-www-form-urlencoded',
      'application/json',
      'text/plain;charset=UTF-8',
    ]) {
      const refused = await raw('PUT', filesOf(site.id, '/htdocs/typed.txt'), 'a=1', { 'content-type': type })
      expect(await problem(refused, 415)).toMatchObject({
        code: 'unsupported_media_type',
        accepted: 'application/octet-stream',
      })
    }
    expect(existsSync(join(home, 'htdocs', 'typed.txt'))).toBe(false)
    const untyped = await raw('PUT', filesOf(site.id, '/htdocs/typed.txt'), new TextEncoder().encode('a=1'))
    await json<SiteFile>(untyped, 201)
    expect(readFileSync(join(home, 'htdocs', 'typed.txt'), 'utf8')).toBe('a=1')
    const typed = await write(site.id, '/htdocs/typed.txt', 'a=2', {
      'content-type': 'Application/Octet-Stream',
    })
    await json<SiteFile>(typed, 200)
  })

  test('ranges answer 206, past the end 416; a file over the read limit needs a range', async () => {
    await json<SiteFile>(await write(site.id, '/htdocs/digits.txt', '0123456789'), 201)
    const part = await raw('GET', filesOf(site.id, '/htdocs/digits.txt'), undefined, { range: 'bytes=2-5' })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10')
    expect(await part.text()).toBe('2345')
    const tail = await raw('GET', filesOf(site.id, '/htdocs/digits.txt'), undefined, { range: 'bytes=-3' })
    expect(await tail.text()).toBe('789')
    const beyond = await raw('GET', filesOf(site.id, '/htdocs/digits.txt'), undefined, { range: 'bytes=10-' })
    expect((await problem(beyond, 416)).code).toBe('range_not_satisfiable')
    expect(beyond.headers.get('content-range')).toBe('bytes */10')
  })

  test('a file of several parts streams in and out whole', async () => {
    const bytes = new Uint8Array(9 * 1024 * 1024 + 123)
    for (let at = 0; at < bytes.length; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536))
    const digest = createHash('sha256').update(bytes).digest('hex')
    const entry = await json<SiteFile>(await write(site.id, '/tmp/big.bin', bytes), 201)
    expect(entry.size).toBe(bytes.length)
    expect(
      createHash('sha256')
        .update(readFileSync(join(home, 'tmp', 'big.bin')))
        .digest('hex'),
    ).toBe(digest)
    // Over the 8 MiB read limit: refused whole, read by range, or through a download link.
    const whole = await problem(await raw('GET', filesOf(site.id, '/tmp/big.bin')), 422)
    expect(whole).toMatchObject({ code: 'file_too_large', sizeBytes: bytes.length })
    const link = await json<{ url: string; expiresAt: string }>(
      await api('POST', `/sites/${site.id}/files/download-links`, { body: { path: '/tmp/big.bin' } }),
      201,
    )
    const url = new URL(link.url)
    const download = await tp.panel.handle(new Request(`http://panel.test${url.pathname}${url.search}`))
    expect(download.status).toBe(200)
    expect(
      createHash('sha256')
        .update(new Uint8Array(await download.arrayBuffer()))
        .digest('hex'),
    ).toBe(digest)
    // No upload's bytes are left beside the file.
    const left = await json<{ items: SiteFile[] }>(await api('GET', `/sites/${site.id}/files?path=/tmp`), 200)
    expect(left.items.filter((item) => item.name.startsWith('.plinth-'))).toEqual([])
  })

  test('a download link needs no credential, and stops working once altered or the file changed', async () => {
    await json<SiteFile>(await write(site.id, '/htdocs/report.csv', 'a,b\n1,2\n'), 201)
    const link = await json<{ url: string }>(
      await api('POST', `/sites/${site.id}/files/download-links`, { body: { path: '/htdocs/report.csv' } }),
      201,
    )
    const path = `${new URL(link.url).pathname}${new URL(link.url).search}`
    expect(path).toStartWith('/api/v1/file-downloads?token=')
    const fetched = await tp.panel.handle(new Request(`http://panel.test${path}`))
    expect(await fetched.text()).toBe('a,b\n1,2\n')
    expect(fetched.headers.get('content-disposition')).toContain('report.csv')
    const altered = `${path.slice(0, -4)}${path.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`
    expect((await problem(await tp.panel.handle(new Request(`http://panel.test${altered}`)), 404)).code).toBe(
      'invalid_download_link',
    )
    await json<SiteFile>(await write(site.id, '/htdocs/report.csv', 'changed'), 200)
    expect((await problem(await tp.panel.handle(new Request(`http://panel.test${path}`)), 404)).code).toBe(
      'invalid_download_link',
    )
  })
})

describe('resumable uploads', () => {
  interface Upload {
    id: string
    size: number
    received: number
    file: SiteFile | null
  }
  const mib = 1024 * 1024
  const bytes = new Uint8Array(6 * mib + 17)
  for (let at = 0; at < bytes.length; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536))

  /** A body that sends `data`, then breaks off as a dropped connection does (when `breaks`). */
  const body = (data: Uint8Array, breaks: boolean) => {
    let at = 0
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at < data.length) {
          controller.enqueue(data.slice(at, at + mib))
          at += mib
        } else if (breaks) controller.error(new Error('connection reset'))
        else controller.close()
      },
    })
  }
  const send = (upload: Upload, offset: number, data: Uint8Array, breaks = false) =>
    tp.panel.handle(
      new Request(`http://panel.test/api/v1/sites/${site.id}/files/uploads/${upload.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${staff}`, 'upload-offset': String(offset) },
        body: body(data, breaks),
        duplex: 'half',
      } as RequestInit),
    )

  test('a broken upload goes on from what arrived, and the file appears whole only at its end', async () => {
    const started = await api('POST', `/sites/${site.id}/files/uploads`, {
      body: { path: '/htdocs/resumed.bin', size: bytes.length },
    })
    const upload = await json<Upload>(started, 201)
    expect(upload).toMatchObject({ size: bytes.length, received: 0, file: null })

    const first = await json<Upload>(await send(upload, 0, bytes.subarray(0, 5 * mib), true), 200)
    expect(first.received).toBe(5 * mib)
    expect(existsSync(join(home, 'htdocs', 'resumed.bin'))).toBe(false)
    const now = await json<Upload>(await api('GET', `/sites/${site.id}/files/uploads/${upload.id}`), 200)
    expect(now.received).toBe(5 * mib)

    const wrong = await problem(await send(upload, 0, bytes.subarray(0, 10)), 409)
    expect(wrong).toMatchObject({ code: 'upload_offset_mismatch', received: 5 * mib })

    const done = await json<Upload>(await send(upload, 5 * mib, bytes.subarray(5 * mib)), 200)
    expect(done.received).toBe(bytes.length)
    expect(done.file).toMatchObject({ path: '/htdocs/resumed.bin', size: bytes.length })
    const onDisk = readFileSync(join(home, 'htdocs', 'resumed.bin'))
    expect(createHash('sha256').update(onDisk).digest('hex')).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    )
    expect((await api('GET', `/sites/${site.id}/files/uploads/${upload.id}`)).status).toBe(404)
  })

  test('more bytes than the upload’s size are refused, an aborted upload leaves nothing', async () => {
    const upload = await json<Upload>(
      await api('POST', `/sites/${site.id}/files/uploads`, {
        body: { path: '/htdocs/aborted.bin', size: 10 },
      }),
      201,
    )
    expect((await problem(await send(upload, 0, bytes.subarray(0, 11)), 413)).code).toBe('upload_too_large')
    await json<Upload>(await send(upload, 0, bytes.subarray(0, 4)), 200)
    expect((await api('DELETE', `/sites/${site.id}/files/uploads/${upload.id}`)).status).toBe(204)
    expect(readdirSync(join(home, 'htdocs')).filter((entry) => entry.includes(upload.id))).toEqual([])
    expect(existsSync(join(home, 'htdocs', 'aborted.bin'))).toBe(false)
    const busy = await json<Upload>(
      await api('POST', `/sites/${site.id}/files/uploads`, { body: { path: '/htdocs/busy.bin', size: 10 } }),
      201,
    )
    // A request holding the upload (its body slow to come): another at the same time is refused.
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let sentFirst = false
    const slow = tp.panel.handle(
      new Request(`http://panel.test/api/v1/sites/${site.id}/files/uploads/${busy.id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${staff}`, 'upload-offset': '0' },
        body: new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sentFirst) {
              await held
              controller.close()
              return
            }
            sentFirst = true
            controller.enqueue(bytes.slice(0, 5))
          },
        }),
        duplex: 'half',
      } as RequestInit),
    )
    await Bun.sleep(200)
    expect((await problem(await send(busy, 0, bytes.subarray(0, 5)), 409)).code).toBe('upload_busy')
    release()
    expect((await json<Upload>(await slow, 200)).received).toBe(5)
    expect((await api('DELETE', `/sites/${site.id}/files/uploads/${busy.id}`)).status).toBe(204)
  })
})

describe('directories, moves, copies, deletes and modes', () => {
  test('make, list by pages, move, copy, chmod and delete', async () => {
    const made = await api('POST', `/sites/${site.id}/files/directories`, {
      body: { path: '/htdocs/a/b/c', parents: true },
    })
    expect((await json<SiteFile>(made, 201)).type).toBe('directory')
    for (const name of ['one', 'two', 'three'])
      await json<SiteFile>(await write(site.id, `/htdocs/a/${name}.txt`, name), 201)
    const first = await json<{ items: SiteFile[]; nextCursor: string }>(
      await api('GET', `/sites/${site.id}/files?path=/htdocs/a&limit=2`),
      200,
    )
    expect(first.items.map((item) => item.name)).toEqual(['b', 'one.txt'])
    const second = await json<{ items: SiteFile[]; nextCursor: string | null }>(
      await api('GET', `/sites/${site.id}/files?path=/htdocs/a&limit=2&cursor=${first.nextCursor}`),
      200,
    )
    expect(second.items.map((item) => item.name)).toEqual(['three.txt', 'two.txt'])
    expect(second.nextCursor).toBeNull()
    // As every list: 1 to 100 a page, and only the cursor this very walk handed out (outside clients found
    // limit=101 and any cursor taken here).
    const tooMany = await problem(await api('GET', `/sites/${site.id}/files?path=/htdocs/a&limit=101`), 422)
    expect(tooMany).toMatchObject({ code: 'validation_failed', errors: [{ location: 'query.limit' }] })
    for (const cursor of ['junk', `${first.nextCursor}x`, Buffer.from('one.txt').toString('base64url')]) {
      const refused = await api('GET', `/sites/${site.id}/files?path=/htdocs/a&cursor=${cursor}`)
      expect((await problem(refused, 400)).code).toBe('invalid_cursor')
    }
    const elsewhere = await api('GET', `/sites/${site.id}/files?path=/htdocs&cursor=${first.nextCursor}`)
    expect((await problem(elsewhere, 400)).code).toBe('invalid_cursor')

    const exists = await api('POST', `/sites/${site.id}/files/directories`, { body: { path: '/htdocs/a' } })
    expect((await problem(exists, 409)).code).toBe('file_exists')
    const moved = await api('POST', `/sites/${site.id}/files/move`, {
      body: { from: '/htdocs/a/one.txt', to: '/htdocs/a/b/uno.txt' },
    })
    expect((await json<SiteFile>(moved, 200)).path).toBe('/htdocs/a/b/uno.txt')
    const clash = await api('POST', `/sites/${site.id}/files/move`, {
      body: { from: '/htdocs/a/two.txt', to: '/htdocs/a/three.txt' },
    })
    expect((await problem(clash, 409)).code).toBe('file_exists')
    const copied = await api('POST', `/sites/${site.id}/files/copy`, {
      body: { from: '/htdocs/a', to: '/htdocs/a2' },
    })
    expect((await json<SiteFile>(copied, 200)).type).toBe('directory')
    expect(readFileSync(join(home, 'htdocs', 'a2', 'b', 'uno.txt'), 'utf8')).toBe('one')
    const into = await api('POST', `/sites/${site.id}/files/copy`, {
      body: { from: '/htdocs/a', to: '/htdocs/a/b/x' },
    })
    expect((await problem(into, 422)).code).toBe('invalid_path')

    const mode = await api('POST', `/sites/${site.id}/files/chmod`, {
      body: { path: '/htdocs/a2/two.txt', mode: '600' },
    })
    expect((await json<SiteFile>(mode, 200)).mode).toBe('0600')
    const setuid = await api('POST', `/sites/${site.id}/files/chmod`, {
      body: { path: '/htdocs/a2/two.txt', mode: '4755' },
    })
    expect((await problem(setuid, 422)).code).toBe('invalid_mode')

    const deleted = await api('POST', `/sites/${site.id}/files/delete`, {
      body: { paths: ['/htdocs/a2', '/htdocs/a/two.txt', '/htdocs/nothing-here'] },
    })
    expect(await json(deleted, 200)).toEqual({
      removed: ['/htdocs/a2', '/htdocs/a/two.txt'],
      missing: ['/htdocs/nothing-here'],
    })
    expect(existsSync(join(home, 'htdocs', 'a2'))).toBe(false)
  })

  test('content is read from and written to files only: a directory or a FIFO is refused, and nothing hangs', async () => {
    await api('POST', `/sites/${site.id}/files/directories`, { body: { path: '/htdocs/folder' } })
    expect((await problem(await write(site.id, '/htdocs/folder', 'x'), 422)).code).toBe('is_a_directory')
    expect((await problem(await raw('GET', filesOf(site.id, '/htdocs/folder')), 422)).code).toBe(
      'is_a_directory',
    )
    // A FIFO, as a site's code could make one: reading it would block a node that opened it blindly.
    Bun.spawnSync(['mkfifo', join(home, 'htdocs', 'pipe')])
    expect((await problem(await raw('GET', filesOf(site.id, '/htdocs/pipe')), 422)).code).toBe('not_a_file')
    expect((await problem(await write(site.id, '/htdocs/pipe', 'x'), 422)).code).toBe('not_a_file')
  })

  test('a write whose body breaks off changes nothing', async () => {
    let sent = false
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new Error('connection reset'))
        else controller.enqueue(new Uint8Array(1024))
        sent = true
      },
    })
    const response = await tp.panel.handle(
      new Request(`http://panel.test/api/v1${filesOf(site.id, '/htdocs/hello.txt')}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${staff}` },
        body: broken,
        duplex: 'half',
      } as RequestInit),
    )
    expect((await problem(response, 400)).code).toBe('upload_incomplete')
    expect(readFileSync(join(home, 'htdocs', 'hello.txt'), 'utf8')).toBe('Hello from the API\n')
  })

  test('the site’s layout stays: its home and top folders are neither deleted, moved nor chmodded', async () => {
    for (const [path, body] of [
      ['delete', { paths: ['/htdocs'] }],
      ['delete', { paths: ['/'] }],
      ['move', { from: '/tmp', to: '/htdocs/tmp' }],
      ['chmod', { path: '/htdocs', mode: '777' }],
    ] as const) {
      const refused = await api('POST', `/sites/${site.id}/files/${path}`, { body })
      expect((await problem(refused, 422)).code).toBe('top_folder')
    }
    expect(existsSync(join(home, 'htdocs', 'hello.txt'))).toBe(true)
  })

  test('the node’s own files are out of reach: logs are read-only, state.json is not the site’s', async () => {
    expect((await problem(await write(site.id, '/logs/access.log', 'forged'), 403)).code).toBe(
      'permission_denied',
    )
    expect((await problem(await raw('GET', filesOf(site.id, '/state.json')), 422)).code).toBe('path_reserved')
  })

  test('the disk quota stops a write that would pass it, and keeps the file as it was', async () => {
    const big = new Uint8Array(21 * 1024 * 1024)
    const refused = await problem(await write(site.id, '/htdocs/editor.txt', big), 422)
    expect(refused).toMatchObject({ code: 'disk_quota_exceeded', quotaBytes: 20 * 1024 * 1024 })
    expect(readFileSync(join(home, 'htdocs', 'editor.txt'), 'utf8')).toBe('version 3')
  })
})

interface Job {
  readonly status: string
  readonly progress: number
  readonly result: Record<string, unknown> | null
  readonly error: { code: string; message: string } | null
  readonly finishedAt: string | null
}

/** The job once it has finished. */
function finished(jobId: string): Promise<Job> {
  return waitFor(
    `job ${jobId}`,
    async () => {
      const job = await json<Job>(await api('GET', `/jobs/${jobId}`), 200)
      if (job.finishedAt === null) await Bun.sleep(100)
      return job.finishedAt === null ? null : job
    },
    60_000,
  )
}

/** An archive made here with the machine's tools (as a customer would upload one), its bytes. */
function madeArchive(name: string, build: (dir: string) => string[][]): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'plinth-archive-'))
  try {
    for (const argv of build(dir)) {
      const made = Bun.spawnSync(argv, { cwd: join(dir, 'a', 'b') })
      if (made.exitCode !== 0) throw new Error(`${argv.join(' ')}: ${made.stderr.toString()}`)
    }
    return readFileSync(join(dir, name))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('archives', () => {
  beforeAll(async () => {
    await api('POST', `/sites/${site.id}/files/directories`, {
      body: { path: '/htdocs/theme/css', parents: true },
    })
    await write(site.id, '/htdocs/theme/index.html', '<h1>theme</h1>')
    await write(site.id, '/htdocs/theme/css/site.css', 'body { color: red }')
    // A link inside what is archived: stored and extracted as a link.
    symlinkSync('css/site.css', join(home, 'htdocs', 'theme', 'style.css'))
  })

  for (const format of ['zip', 'tar.gz'] as const)
    test(`a ${format} made of a folder and extracted elsewhere gives the same files, links as links`, async () => {
      const made = await api('POST', `/sites/${site.id}/files/archive`, {
        body: { paths: ['/htdocs/theme'], to: `/tmp/theme.${format}` },
      })
      const archiveJob = await finished((await json<{ jobId: string }>(made, 202)).jobId)
      expect(archiveJob).toMatchObject({ status: 'succeeded', progress: 100 })
      expect(archiveJob.result).toMatchObject({
        entries: 5,
        file: { path: `/tmp/theme.${format}`, type: 'file' },
      })
      const extracted = await api('POST', `/sites/${site.id}/files/extract`, {
        body: { path: `/tmp/theme.${format}`, to: `/htdocs/restored-${format}` },
      })
      const extractJob = await finished((await json<{ jobId: string }>(extracted, 202)).jobId)
      expect(extractJob).toMatchObject({ status: 'succeeded', result: { entries: 5 } })
      const restored = join(home, 'htdocs', `restored-${format}`, 'theme')
      expect(readFileSync(join(restored, 'css', 'site.css'), 'utf8')).toBe('body { color: red }')
      expect(lstatSync(join(restored, 'style.css')).isSymbolicLink()).toBe(true)
      expect(statSync(join(restored, 'index.html')).uid).toBe(statSync(join(home, 'htdocs')).uid)
      // Into a folder that has files, only with overwrite.
      const again = await api('POST', `/sites/${site.id}/files/extract`, {
        body: { path: `/tmp/theme.${format}`, to: `/htdocs/restored-${format}` },
      })
      const refused = await finished((await json<{ jobId: string }>(again, 202)).jobId)
      expect(refused).toMatchObject({ status: 'failed', error: { code: 'file_exists' } })
    })

  const evil = [
    [
      'a zip with a ../ entry',
      'slip.zip',
      'archive_entry_escapes',
      [['zip', '-q', '../../slip.zip', '../../evil.txt']],
    ],
    [
      'a tar.gz with a ../ entry',
      'slip.tgz',
      'archive_entry_escapes',
      [['tar', '-czPf', '../../slip.tgz', '../../evil.txt']],
    ],
    [
      'a tar.gz with an absolute entry',
      'abs.tgz',
      'archive_entry_escapes',
      [['tar', '-czPf', '../../abs.tgz', '/etc/hostname']],
    ],
    [
      'a zip with a link to /etc/passwd',
      'link.zip',
      'archive_link_escapes',
      [
        ['ln', '-s', '/etc/passwd', 'pw'],
        ['zip', '-q', '-y', '../../link.zip', 'pw'],
      ],
    ],
    [
      'a tar.gz with a link climbing out',
      'link.tgz',
      'archive_link_escapes',
      [
        ['ln', '-s', '../../../../..', 'up'],
        ['tar', '-czf', '../../link.tgz', 'up'],
      ],
    ],
  ] as const
  for (const [what, name, code, steps] of evil)
    test(`${what} is refused (${code}) and nothing is extracted`, async () => {
      const bytes = madeArchive(name, (dir) => {
        Bun.spawnSync(['mkdir', '-p', join(dir, 'a', 'b')])
        Bun.spawnSync(['sh', '-c', `echo pwned > ${join(dir, 'evil.txt')}`])
        return steps.map((argv) => [...argv])
      })
      await json<SiteFile>(await write(site.id, `/tmp/${name}`, bytes as BodyInit), 201)
      const started = await api('POST', `/sites/${site.id}/files/extract`, {
        body: { path: `/tmp/${name}`, to: `/htdocs/evil-${name}` },
      })
      const job = await finished((await json<{ jobId: string }>(started, 202)).jobId)
      expect(job).toMatchObject({ status: 'failed', error: { code } })
      expect(existsSync(join(home, 'htdocs', `evil-${name}`))).toBe(false)
      expect(existsSync(join(home, 'evil.txt'))).toBe(false)
      expect(existsSync(join(nodeDir, 'sites', 'evil.txt'))).toBe(false)
      // Nor is its staging left beside the target.
      expect(readdirSync(join(home, 'htdocs')).filter((entry) => entry.startsWith('.plinth-'))).toEqual([])
    })

  test('a file that is no archive is refused before any job', async () => {
    const refused = await api('POST', `/sites/${site.id}/files/extract`, {
      body: { path: '/htdocs/hello.txt', to: '/htdocs/x' },
    })
    expect((await problem(refused, 422)).code).toBe('invalid_archive')
    const missing = await api('POST', `/sites/${site.id}/files/archive`, {
      body: { paths: ['/htdocs/none'], to: '/tmp/x.zip' },
    })
    expect((await problem(missing, 404)).code).toBe('file_not_found')
  })
})

describe('what an outside review tried', () => {
  test('names that look like options are names: archiving `-delete` deletes nothing, `-exec` runs nothing', async () => {
    await api('POST', `/sites/${site.id}/files/directories`, { body: { path: '/htdocs/inj' } })
    for (const name of ['a.txt', '-delete', '-exec', 'sh', '-c', 'touch proof', ';'])
      await json<SiteFile>(await write(site.id, `/htdocs/inj/${name}`, name), 201)
    const one = await api('POST', `/sites/${site.id}/files/archive`, {
      body: { paths: ['/htdocs/inj/-delete'], to: '/tmp/inj-1.zip' },
    })
    expect(await finished((await json<{ jobId: string }>(one, 202)).jobId)).toMatchObject({
      status: 'succeeded',
    })
    const many = await api('POST', `/sites/${site.id}/files/archive`, {
      body: {
        paths: ['-exec', 'sh', '-c', 'touch proof', ';'].map((name) => `/htdocs/inj/${name}`),
        to: '/tmp/inj-2.tar.gz',
      },
    })
    expect(await finished((await json<{ jobId: string }>(many, 202)).jobId)).toMatchObject({
      status: 'succeeded',
    })
    expect(readFileSync(join(home, 'htdocs', 'inj', 'a.txt'), 'utf8')).toBe('a.txt')
    expect(existsSync(join(home, 'htdocs', 'inj', 'proof'))).toBe(false)
    expect(existsSync(join(home, 'htdocs', 'proof'))).toBe(false)
  })

  test('a copy over a link replaces the link, never writes through it', async () => {
    const victim = join(folder, 'victim.txt')
    Bun.spawnSync(['sh', '-c', `echo untouched > ${victim} && chmod 666 ${victim}`])
    symlinkSync(victim, join(home, 'htdocs', 'to-victim'))
    await json<SiteFile>(await write(site.id, '/htdocs/payload.txt', 'written by the customer'), 201)
    const copied = await api('POST', `/sites/${site.id}/files/copy`, {
      body: { from: '/htdocs/payload.txt', to: '/htdocs/to-victim', overwrite: true },
    })
    expect((await json<SiteFile>(copied, 200)).type).toBe('file')
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n')
    // Nor is content written through one.
    symlinkSync(victim, join(home, 'htdocs', 'to-victim-2'))
    expect((await problem(await write(site.id, '/htdocs/to-victim-2', 'x'), 422)).code).toBe(
      'link_not_followed',
    )
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n')
  })

  test('a link to `..` leads to the node’s files and the site’s layout by where it leads, not its name', async () => {
    symlinkSync('..', join(home, 'htdocs', 'up'))
    const stat = await problem(
      await api('GET', `/sites/${site.id}/files/stat?path=/htdocs/up/state.json`),
      422,
    )
    expect(stat.code).toBe('path_reserved')
    expect((await problem(await write(site.id, '/htdocs/up/state.json', '{}'), 422)).code).toBe(
      'path_reserved',
    )
    const chmod = await api('POST', `/sites/${site.id}/files/chmod`, {
      body: { path: '/htdocs/up/htdocs', mode: '755' },
    })
    expect((await problem(chmod, 422)).code).toBe('top_folder')
    const deleted = await api('POST', `/sites/${site.id}/files/delete`, {
      body: { paths: ['/htdocs/up/tmp'] },
    })
    expect((await problem(deleted, 422)).code).toBe('top_folder')
    rmSync(join(home, 'htdocs', 'up'))
  })

  test('an archive expanding past the site’s room is refused before it fills the disk', async () => {
    const bomb = madeArchive('bomb.zip', (dir) => {
      Bun.spawnSync(['mkdir', '-p', join(dir, 'a', 'b')])
      Bun.spawnSync([
        'dd',
        'if=/dev/zero',
        `of=${join(dir, 'a', 'b', 'zeros')}`,
        'bs=1M',
        'count=40',
        'status=none',
      ])
      return [['zip', '-q', '../../bomb.zip', 'zeros']]
    })
    expect(bomb.length).toBeLessThan(1024 * 1024)
    await json<SiteFile>(await write(site.id, '/tmp/bomb.zip', bomb as BodyInit), 201)
    const started = await api('POST', `/sites/${site.id}/files/extract`, {
      body: { path: '/tmp/bomb.zip', to: '/htdocs/bomb' },
    })
    const job = await finished((await json<{ jobId: string }>(started, 202)).jobId)
    expect(job).toMatchObject({ status: 'failed', error: { code: 'disk_quota_exceeded' } })
    expect(existsSync(join(home, 'htdocs', 'bomb'))).toBe(false)
    expect(readdirSync(join(home, 'htdocs')).filter((entry) => entry.startsWith('.plinth-'))).toEqual([])
  })

  test('saves with the same If-Match: exactly one wins', async () => {
    const first = await json<SiteFile>(await write(site.id, '/htdocs/race.txt', 'v1'), 201)
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) =>
        write(site.id, '/htdocs/race.txt', `v2 by ${n}`, { 'if-match': first.etag ?? '' }),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412, 412, 412, 412, 412])
    const created = await Promise.all(
      [1, 2, 3, 4].map((n) => write(site.id, '/htdocs/race-new.txt', `by ${n}`, { 'if-none-match': '*' })),
    )
    expect(created.map((answer) => answer.status).sort()).toEqual([201, 412, 412, 412])
  })

  test('uploads side by side share the quota: both cannot pass it', async () => {
    const used = Number(Bun.spawnSync(['du', '-s', '-b', '-P', home]).stdout.toString().split('\t')[0])
    const each = Math.floor((20 * 1024 * 1024 - used) / 2) + 1024 * 1024
    expect(each).toBeGreaterThan(1024 * 1024)
    const answers = await Promise.all(
      ['left', 'right'].map((side) => write(site.id, `/tmp/${side}.bin`, new Uint8Array(each))),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422])
    await api('POST', `/sites/${site.id}/files/delete`, {
      body: { paths: ['/tmp/left.bin', '/tmp/right.bin'] },
    })
  })

  test('what the API writes and extracts, the site’s nginx serves', async () => {
    await json<SiteFile>(await write(site.id, '/htdocs/readme.html', '<p>v1</p>'), 201)
    await api('POST', `/sites/${site.id}/files/chmod`, { body: { path: '/htdocs/readme.html', mode: '640' } })
    await json<SiteFile>(await write(site.id, '/htdocs/readme.html', '<p>v2</p>'), 200)
    const page = await served('/readme.html')
    expect(page.status).toBe(200)
    expect(await page.text()).toBe('<p>v2</p>')
    const extracted = await api('POST', `/sites/${site.id}/files/extract`, {
      body: { path: '/tmp/theme.zip', to: '/htdocs/served' },
    })
    expect(await finished((await json<{ jobId: string }>(extracted, 202)).jobId)).toMatchObject({
      status: 'succeeded',
    })
    const themed = await served('/served/theme/index.html')
    expect(themed.status).toBe(200)
    expect(await themed.text()).toBe('<h1>theme</h1>')
  })

  test('a file its user cannot read is 403 before any answer starts; ranges follow RFC 9110', async () => {
    await json<SiteFile>(await write(site.id, '/htdocs/locked.txt', 'secret'), 201)
    await api('POST', `/sites/${site.id}/files/chmod`, { body: { path: '/htdocs/locked.txt', mode: '000' } })
    expect((await problem(await raw('GET', filesOf(site.id, '/htdocs/locked.txt')), 403)).code).toBe(
      'permission_denied',
    )
    await json<SiteFile>(await write(site.id, '/htdocs/empty.txt', ''), 201)
    const empty = await raw('GET', filesOf(site.id, '/htdocs/empty.txt'), undefined, { range: 'bytes=-5' })
    expect((await problem(empty, 416)).code).toBe('range_not_satisfiable')
    const backwards = await raw('GET', filesOf(site.id, '/htdocs/digits.txt'), undefined, {
      range: 'bytes=3-1',
    })
    expect(backwards.status).toBe(200)
    expect(await backwards.text()).toBe('0123456789')
    const weak = await raw('GET', filesOf(site.id, '/htdocs/digits.txt'), undefined, { 'if-none-match': '*' })
    expect(weak.status).toBe(304)
  })

  test('a delete stopped partway says what it deleted, which is audited', async () => {
    await api('POST', `/sites/${site.id}/files/directories`, {
      body: { path: '/htdocs/ro/inner', parents: true },
    })
    await json<SiteFile>(await write(site.id, '/htdocs/ro/inner/kept.txt', 'kept'), 201)
    await json<SiteFile>(await write(site.id, '/htdocs/gone.txt', 'gone'), 201)
    await api('POST', `/sites/${site.id}/files/chmod`, { body: { path: '/htdocs/ro/inner', mode: '555' } })
    const refused = await problem(
      await api('POST', `/sites/${site.id}/files/delete`, {
        body: { paths: ['/htdocs/gone.txt', '/htdocs/ro'] },
      }),
      403,
    )
    expect(refused).toMatchObject({ code: 'permission_denied', removed: ['/htdocs/gone.txt'] })
    expect(existsSync(join(home, 'htdocs', 'gone.txt'))).toBe(false)
    const audited = await tp.panel.store.db
      .withTables<{ audit_entries: { action: string; details: string } }>()
      .selectFrom('audit_entries')
      .select('details')
      .where('action', '=', 'file.delete')
      .execute()
    expect(audited.some((row) => row.details.includes('/htdocs/gone.txt'))).toBe(true)
    await api('POST', `/sites/${site.id}/files/chmod`, { body: { path: '/htdocs/ro/inner', mode: '755' } })
  })

  test('a write into a folder that is not there is 404 before the body; a link to a deleted file is no link', async () => {
    const missing = await write(site.id, '/htdocs/no-such-folder/x.txt', new Uint8Array(1024))
    expect((await problem(missing, 404)).code).toBe('file_not_found')
    await json<SiteFile>(await write(site.id, '/htdocs/short-lived.txt', 'soon gone'), 201)
    const link = await json<{ url: string }>(
      await api('POST', `/sites/${site.id}/files/download-links`, {
        body: { path: '/htdocs/short-lived.txt' },
      }),
      201,
    )
    await api('POST', `/sites/${site.id}/files/delete`, { body: { paths: ['/htdocs/short-lived.txt'] } })
    const url = new URL(link.url)
    const gone = await tp.panel.handle(new Request(`http://panel.test${url.pathname}${url.search}`))
    expect((await problem(gone, 404)).code).toBe('invalid_download_link')
  })
})

describe('confinement', () => {
  beforeAll(() => {
    // Planted as the site's code could plant them.
    symlinkSync('/etc/passwd', join(home, 'htdocs', 'passwd'))
    symlinkSync('/etc', join(home, 'htdocs', 'etc'))
    symlinkSync(join(otherHome, 'htdocs'), join(home, 'htdocs', 'neighbour'))
  })

  test('a link is shown as a link and never read, listed through or chmodded', async () => {
    const stat = await json<SiteFile>(
      await api('GET', `/sites/${site.id}/files/stat?path=/htdocs/passwd`),
      200,
    )
    expect(stat).toMatchObject({ type: 'link', target: '/etc/passwd', etag: null })
    const read = await problem(await raw('GET', filesOf(site.id, '/htdocs/passwd')), 422)
    expect(read).toMatchObject({ code: 'link_not_followed', target: '/etc/passwd' })
    const listed = await problem(await api('GET', `/sites/${site.id}/files?path=/htdocs/neighbour`), 422)
    expect(listed.code).toBe('link_not_followed')
    const passwdMode = statSync('/etc/passwd').mode
    const chmod = await api('POST', `/sites/${site.id}/files/chmod`, {
      body: { path: '/htdocs/passwd', mode: '777' },
    })
    expect((await problem(chmod, 422)).code).toBe('link_not_followed')
    expect(statSync('/etc/passwd').mode).toBe(passwdMode)
    const link = await api('POST', `/sites/${site.id}/files/download-links`, {
      body: { path: '/htdocs/passwd' },
    })
    expect((await problem(link, 422)).code).toBe('link_not_followed')
  })

  test('through a link to /etc or to another site is out of the site, for reads and writes', async () => {
    const escapes = [
      await raw('GET', filesOf(site.id, '/htdocs/etc/passwd')),
      await raw('GET', filesOf(site.id, '/htdocs/neighbour/index.html')),
      await write(site.id, '/htdocs/etc/plinth-evil', 'owned'),
      await write(site.id, '/htdocs/neighbour/index.html', 'defaced'),
      await api('GET', `/sites/${site.id}/files?path=/htdocs/etc/ssh`),
      await api('POST', `/sites/${site.id}/files/move`, {
        body: { from: '/htdocs/hello.txt', to: '/htdocs/etc/hello' },
      }),
      await api('POST', `/sites/${site.id}/files/copy`, {
        body: { from: '/htdocs/neighbour/index.html', to: '/htdocs/y' },
      }),
    ]
    for (const response of escapes) expect((await problem(response, 422)).code).toBe('path_escapes_site')
    expect(existsSync('/etc/plinth-evil')).toBe(false)
    expect(readFileSync(join(otherHome, 'htdocs', 'index.html'), 'utf8')).not.toContain('defaced')
  })

  test('`..` climbing out, NUL bytes and relative paths are refused', async () => {
    const climbing = await raw('GET', filesOf(site.id, '/htdocs/../../other/htdocs/index.html'))
    expect((await problem(climbing, 422)).code).toBe('path_escapes_site')
    // A NUL byte is refused by the API before the node hears of it.
    const nul = await problem(await raw('GET', filesOf(site.id, '/htdocs/a\u0000.txt')), 422)
    expect(JSON.stringify(nul)).toContain('query.path')
    expect((await problem(await raw('GET', filesOf(site.id, 'htdocs/hello.txt')), 422)).code).toBe(
      'invalid_path',
    )
  })

  test('deleting a link removes the link, not what it points to', async () => {
    const deleted = await api('POST', `/sites/${site.id}/files/delete`, {
      body: { paths: ['/htdocs/passwd', '/htdocs/etc', '/htdocs/neighbour'] },
    })
    expect((await json<{ removed: string[] }>(deleted, 200)).removed).toHaveLength(3)
    expect(lstatSync('/etc/passwd').isFile()).toBe(true)
    expect(existsSync('/etc/hostname') || existsSync('/etc/os-release')).toBe(true)
    expect(existsSync(join(otherHome, 'htdocs', 'index.html'))).toBe(true)
  })
})

describe('who may', () => {
  test('another customer’s token finds no such site, for reads and writes', async () => {
    const theirs = await tp.token({ customerId: other.customerId })
    expect((await problem(await api('GET', `/sites/${site.id}/files`, { token: theirs }), 404)).code).toBe(
      'not_found',
    )
    expect((await problem(await write(site.id, '/htdocs/x.txt', 'x', {}, theirs), 404)).code).toBe(
      'not_found',
    )
    // Their own site they may.
    await json(await api('GET', `/sites/${other.id}/files`, { token: theirs }), 200)
  })

  test('a token without site:files is refused', async () => {
    const reader = await tp.token({ scopes: ['site:read'] })
    expect((await api('GET', `/sites/${site.id}/files`, { token: reader })).status).toBe(403)
  })

  test('every change is audited with its path', async () => {
    const rows = await tp.panel.store.db
      .withTables<{ audit_entries: { action: string; subject_id: string; details: string } }>()
      .selectFrom('audit_entries')
      .select(['action', 'subject_id', 'details'])
      .where('subject_id', '=', site.id)
      .where('action', 'like', 'file.%')
      .execute()
    const actions = new Set(rows.map((row) => row.action))
    for (const action of [
      'file.write',
      'file.mkdir',
      'file.move',
      'file.copy',
      'file.delete',
      'file.chmod',
      'file.share',
    ])
      expect(actions).toContain(action)
    expect(rows.some((row) => row.details.includes('/htdocs/hello.txt'))).toBe(true)
  })

  test('a suspended site’s files wait for it', async () => {
    await json(await api('POST', `/sites/${other.id}/suspend`), 200)
    await waitFor(
      'suspended',
      async () => {
        const now = await json<Site>(await api('GET', `/sites/${other.id}`), 200)
        if (now.status !== 'suspended') await Bun.sleep(50)
        return now.status === 'suspended'
      },
      20_000,
    )
    expect((await problem(await api('GET', `/sites/${other.id}/files`), 409)).code).toBe('site_suspended')
    expect((await problem(await write(other.id, '/htdocs/x.txt', 'x'), 409)).code).toBe('site_suspended')
  })
})
