// The local driver without a port (files only) on a temporary data directory: the files it lays out, idempotence,
// abort, and path safety. Serving is the runtime's tests' (plugins/nodes/node/runtime/).

import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type Node,
  type NodeDriver,
  NodeFailure,
  type NodePayload,
  nodeCommand,
  type SiteSpec,
} from '../contract.ts'
import { parseStateFile } from '../node/runtime/site-state.ts'
import { createLocalDriver } from './local.ts'

const roots: string[] = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

const node: Node = {
  id: 'nod_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
  name: 'local',
  driver: 'local',
  hostname: 'localhost',
  status: 'active',
  ready: true,
  notReady: [],
  agent: { connected: true, lastSeenAt: null, version: null, capabilities: null },
  siteDefaults: { cpuPercent: 100, memoryMB: 1024, processes: 128 },
  inventory: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}

const spec = (overrides: Partial<SiteSpec> = {}): SiteSpec => ({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1',
  handle: 'my-shop',
  domain: 'shop.example.com',
  type: 'wordpress',
  customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SAA',
  diskMB: 500,
  ...overrides,
})

const never = () => new AbortController().signal

/** The driver's `operation` on `site`, sent as a job sends it. */
const on = <O extends 'provision' | 'update' | 'suspend' | 'unsuspend' | 'delete' | 'report'>(
  operation: O,
  site: SiteSpec,
  signal = never(),
) => driver.send(node, nodeCommand(operation, site as NodePayload<O>), signal)
let dataDir: string
let driver: NodeDriver
let siteDir: string
let blockPath: string

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'plinth-local-driver-'))
  roots.push(dataDir)
  driver = createLocalDriver({ dataDir })
  siteDir = join(dataDir, 'sites', spec().id)
  blockPath = join(dataDir, 'nginx', 'sites', `${spec().id}.conf`)
})

const read = (name: string) => readFileSync(join(siteDir, name), 'utf8')
/** The site's nginx server block, in `<dataDir>/nginx/sites/<site id>.conf`. */
const block = () => readFileSync(blockPath, 'utf8')
const state = () => parseStateFile(read('state.json'))
/** Every file under `dir` (the site's directory), relative, sorted: temporary files would show here. */
const files = (dir = siteDir) =>
  existsSync(dir)
    ? (readdirSync(dir, { recursive: true }) as string[])
        .filter((path) => !lstatSync(join(dir, path)).isDirectory())
        .sort()
    : []

describe('provision', () => {
  test('lays out htdocs with a placeholder naming the domain, logs, tmp, state.json and an nginx server block', async () => {
    await on('provision', spec(), never())
    expect(files()).toEqual(['htdocs/index.html', 'state.json'])
    expect(files(join(dataDir, 'nginx'))).toEqual([`sites/${spec().id}.conf`])
    for (const dir of ['logs', 'tmp']) expect(lstatSync(join(siteDir, dir)).isDirectory()).toBe(true)
    expect(read('htdocs/index.html')).toContain('<h1>shop.example.com</h1>')
    const config = block()
    expect(config).toContain('server_name shop.example.com;')
    expect(config).toContain(`root "${join(siteDir, 'htdocs')}";`)
    expect(config).toContain('# Disk quota: 500 MB')
    expect(config).toContain(`access_log "${join(siteDir, 'logs')}/access.log" plinth;`)
    expect(config).not.toContain('return 503')
    // Nothing runs PHP when files are only laid out.
    expect(config).not.toContain('fastcgi_pass')
    expect(state()).toEqual({
      siteId: spec().id,
      handle: 'my-shop',
      domain: 'shop.example.com',
      type: 'wordpress',
      customerId: spec().customerId,
      diskMB: 500,
      cpuPercent: null,
      memoryMB: null,
      processes: null,
      reaches: [],
      state: 'active',
      unixUser: null,
      app: null,
      certificate: null,
      updatedAt: expect.any(String),
    })
  })

  test('is idempotent: a second run changes nothing and keeps the customer’s own page', async () => {
    await on('provision', spec(), never())
    writeFileSync(join(siteDir, 'htdocs', 'index.html'), '<p>my own shop</p>')
    const config = block()
    await on('provision', spec(), never())
    expect(read('htdocs/index.html')).toBe('<p>my own shop</p>')
    expect(block()).toBe(config)
    expect(files()).toEqual(['htdocs/index.html', 'state.json'])
  })

  test('an unlimited quota says so', async () => {
    await on('provision', spec({ diskMB: null }), never())
    expect(block()).toContain('# Disk quota: unlimited')
  })

  test('an aborted signal stops before anything is written', async () => {
    const controller = new AbortController()
    controller.abort(new Error('cancelled'))
    await expect(on('provision', spec(), controller.signal)).rejects.toThrow('cancelled')
    expect(existsSync(siteDir)).toBe(false)
  })

  test('a signal aborted midway leaves no temporary files, and a repeat completes the site', async () => {
    const controller = new AbortController()
    // Aborts as soon as the driver has started: whatever folders it made, the writes see the abort.
    const started = on('provision', spec(), controller.signal)
    controller.abort(new Error('lease lost'))
    await expect(started).rejects.toThrow('lease lost')
    // No file was written, not even a temporary one.
    expect(files()).toEqual([])
    expect(files(join(dataDir, 'nginx'))).toEqual([])
    await on('provision', spec(), never())
    expect(files()).toEqual(['htdocs/index.html', 'state.json'])
    expect(block()).toContain('server_name shop.example.com;')
  })
  // BUG (fixed): a server killed (SIGKILL) between writing a temporary file and renaming it left
  // `htdocs/index.html.<pid>.<random>.tmp` in the document root for good (served, and counted as the site's disk),
  // because the repeated run wrote under a new temporary name and nothing removed the old one.
  test('a repeat after a crash mid-write removes the temporary files the dead process left, and only those', async () => {
    const child = Bun.spawn(['true'])
    await child.exited
    mkdirSync(join(siteDir, 'htdocs'), { recursive: true })
    mkdirSync(join(dataDir, 'nginx', 'sites'), { recursive: true })
    const leftovers = [
      join(siteDir, `htdocs/index.html.${child.pid}.0123456789ab.tmp`),
      join(siteDir, `state.json.${process.pid}.0123456789ac.tmp`),
      `${blockPath}.${child.pid}.0123456789ad.tmp`,
    ]
    for (const path of leftovers) writeFileSync(path, 'half')
    writeFileSync(join(siteDir, 'htdocs', 'upload.tmp'), 'the customer’s')
    await on('provision', spec(), never())
    expect(files()).toEqual(['htdocs/index.html', 'htdocs/upload.tmp', 'state.json'])
    expect(files(join(dataDir, 'nginx'))).toEqual([`sites/${spec().id}.conf`])
  })
})

describe('update', () => {
  test('rewrites the server block for a new domain and quota, and renames the placeholder but not a real page', async () => {
    await on('provision', spec(), never())
    await on('update', spec({ domain: 'new.example.org', diskMB: 2048 }), never())
    expect(block()).toContain('server_name new.example.org;')
    expect(block()).toContain('# Disk quota: 2048 MB')
    expect(read('htdocs/index.html')).toContain('<h1>new.example.org</h1>')
    expect(state()).toMatchObject({ domain: 'new.example.org', diskMB: 2048, state: 'active' })
    writeFileSync(join(siteDir, 'htdocs', 'index.html'), '<p>real</p>')
    await on('update', spec({ domain: 'third.example.org' }), never())
    expect(read('htdocs/index.html')).toBe('<p>real</p>')
  })

  test('keeps a suspended site suspended', async () => {
    await on('provision', spec(), never())
    await on('suspend', spec(), never())
    await on('update', spec({ domain: 'other.example.com' }), never())
    expect(block()).toContain('return 503 ')
    expect(block()).toContain('server_name other.example.com;')
    expect(state()?.state).toBe('suspended')
  })
})

describe('suspend and unsuspend', () => {
  test('suspending answers 503 for the domain and keeps the files; unsuspending serves them again', async () => {
    await on('provision', spec(), never())
    writeFileSync(join(siteDir, 'htdocs', 'shop.html'), 'products')
    await on('suspend', spec(), never())
    await on('suspend', spec(), never())
    const suspended = block()
    expect(suspended).toContain('return 503 ')
    expect(suspended).toContain('server_name shop.example.com;')
    // Only the ACME challenges' root is left: the site's files are not served.
    expect(suspended).not.toContain(`root "${join(siteDir, 'htdocs')}";`)
    expect(state()?.state).toBe('suspended')
    expect(read('htdocs/shop.html')).toBe('products')
    expect(await on('report', spec())).toMatchObject({ state: 'suspended' })
    await on('unsuspend', spec(), never())
    await on('unsuspend', spec(), never())
    expect(block()).not.toContain('return 503')
    expect(block()).toContain(`root "${join(siteDir, 'htdocs')}";`)
    expect(state()?.state).toBe('active')
  })
})

describe('delete', () => {
  test('removes the site’s directory and server block; deleting again, or a site never provisioned, is fine', async () => {
    await on('provision', spec(), never())
    await on('delete', spec(), never())
    expect(existsSync(siteDir)).toBe(false)
    expect(existsSync(blockPath)).toBe(false)
    expect(readdirSync(join(dataDir, 'sites')).filter((name) => name !== '.trash')).toEqual([])
    expect(readdirSync(join(dataDir, 'sites', '.trash'))).toEqual([])
    await on('delete', spec(), never())
    await on('delete', spec({ id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SNP' }), never())
    expect(await on('report', spec())).toEqual({ state: 'absent', diskBytes: 0, certificate: null })
  })

  test('finishes a removal a crash interrupted after the site was moved aside', async () => {
    await on('provision', spec(), never())
    const parked = join(dataDir, 'sites', '.trash', spec().id)
    mkdirSync(join(dataDir, 'sites', '.trash'), { recursive: true })
    // As if the process died between the move and the removal.
    const { renameSync } = await import('node:fs')
    renameSync(siteDir, parked)
    await on('delete', spec(), never())
    expect(existsSync(parked)).toBe(false)
  })

  test('leaves other sites alone', async () => {
    const other = spec({
      id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SB2',
      handle: 'other',
      domain: 'other.example.com',
    })
    await on('provision', spec(), never())
    await on('provision', other, never())
    await on('delete', spec(), never())
    expect(await on('report', other)).toMatchObject({ state: 'active' })
  })

  test('an aborted signal deletes nothing', async () => {
    await on('provision', spec(), never())
    const controller = new AbortController()
    controller.abort(new Error('cancelled'))
    await expect(on('delete', spec(), controller.signal)).rejects.toThrow('cancelled')
    expect(existsSync(siteDir)).toBe(true)
  })
})

describe('report', () => {
  test('gives the state and the bytes under the site’s directory', async () => {
    expect(await on('report', spec())).toEqual({ state: 'absent', diskBytes: 0, certificate: null })
    await on('provision', spec(), never())
    const base = (await on('report', spec())).diskBytes
    const expected = ['htdocs/index.html', 'state.json']
      .map((file) => lstatSync(join(siteDir, file)).size)
      .reduce((a, b) => a + b, 0)
    expect(base).toBe(expected)
    mkdirSync(join(siteDir, 'htdocs', 'media'))
    writeFileSync(join(siteDir, 'htdocs', 'media', 'photo.jpg'), new Uint8Array(10_000))
    expect(await on('report', spec())).toEqual({
      state: 'active',
      diskBytes: base + 10_000,
      certificate: null,
    })
  })

  test('does not follow symbolic links out of the site, to a file or a directory', async () => {
    await on('provision', spec(), never())
    const outside = join(dataDir, 'big.bin')
    writeFileSync(outside, new Uint8Array(1_000_000))
    const before = (await on('report', spec())).diskBytes
    symlinkSync(outside, join(siteDir, 'htdocs', 'link.bin'))
    symlinkSync(dataDir, join(siteDir, 'htdocs', 'link-dir'))
    const after = (await on('report', spec())).diskBytes
    expect(after - before).toBeLessThan(1000)
  })
})

describe('path safety', () => {
  const unsafe: [string, Partial<SiteSpec>][] = [
    ['a parent directory id', { id: '..' }],
    ['a path in the id', { id: 'site_1/../../etc' }],
    ['an absolute id', { id: '/etc' }],
    ['a dot id', { id: '.trash' }],
    ['an empty id', { id: '' }],
    ['a handle with a slash', { handle: 'a/b' }],
    ['a handle going up', { handle: '..' }],
    ['a domain injecting nginx directives', { domain: 'a.example; include /etc/passwd' }],
    ['a domain with a newline', { domain: 'a.example\n}' }],
    ['an upper-case domain', { domain: 'Shop.Example.com' }],
    ['a customer id with a quote', { customerId: 'cus_"x' }],
    ['a negative quota', { diskMB: -1 }],
  ]
  for (const [what, overrides] of unsafe) {
    test(`refuses ${what} for good (a NodeFailure), touching nothing`, async () => {
      for (const operation of ['provision', 'update', 'suspend', 'unsuspend', 'delete'] as const) {
        const attempt = on(operation, spec(overrides))
        await expect(attempt).rejects.toBeInstanceOf(NodeFailure)
        await expect(attempt).rejects.toMatchObject({ code: 'unsafe_site_spec' })
      }
      await expect(on('report', spec(overrides))).rejects.toBeInstanceOf(NodeFailure)
      expect(existsSync(join(dataDir, 'sites')) ? readdirSync(join(dataDir, 'sites')) : []).toEqual([])
    })
  }

  test('refuses a symbolic link in place of the site’s directory', async () => {
    const elsewhere = join(dataDir, 'elsewhere')
    mkdirSync(elsewhere)
    mkdirSync(join(dataDir, 'sites'))
    symlinkSync(elsewhere, siteDir)
    await expect(on('provision', spec(), never())).rejects.toMatchObject({
      code: 'unsafe_site_directory',
    })
    expect(readdirSync(elsewhere)).toEqual([])
  })

  test('refuses a data directory nginx would misread', () => {
    for (const bad of ['/srv/pl"inth', '/srv/$host', '/srv/back\\slash', '/srv/new\nline']) {
      expect(() => createLocalDriver({ dataDir: bad })).toThrow(/cannot use/)
    }
    expect(() => createLocalDriver({ dataDir: '/srv/with space' })).not.toThrow()
  })
})
