// SFTP accounts end to end on the local node's real SSH server, with OpenSSH's own `sftp` client: a site served
// with its Unix user, accounts made over HTTP (a generated password, keys, read-only), put/get/ls/rename/rm as the
// site's user, nothing outside the site reachable (climbing, /etc/passwd, planted links to the node and to another
// site), logins refused after revocation and sessions open during it cut, a rotated password, a suspended site,
// another customer's site 404, every change audited.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  cgroupOf,
  createTestPanel,
  expectFieldProblem,
  expectProblem,
  freePort,
  processesOfUid,
  removeNodeLeftovers,
  siteGroupPath,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import { brandsPlugin } from '../brands/index.ts'
import { customersPlugin } from '../customers/index.ts'
import { nodesPlugin } from '../nodes/index.ts'
import type { Site } from '../sites/contract.ts'
import { sitesPlugin } from '../sites/index.ts'
import type { SftpUser } from './contract.ts'
import { sftpPlugin } from './index.ts'
import { type Credential, sftpClient } from './testing/sftp-client.ts'

const folder = mkdtempSync(join(tmpdir(), 'plinth-sftp-'))
const sitesDir = join(folder, 'sites')
const clientDir = join(folder, 'client')
// nginx's workers and the sites' users pass through to the sites' homes.
chmodSync(folder, 0o711)
const sftpPort = freePort()
let tp: TestPanel
let token: string
let client: ReturnType<typeof sftpClient>

type Account = SftpUser & { password?: string }

beforeAll(async () => {
  Bun.spawnSync(['mkdir', '-p', clientDir])
  chmodSync(clientDir, 0o700)
  tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: { dataDir: sitesDir, httpPort: freePort(), httpsPort: freePort() },
      }),
      sitesPlugin(),
      sftpPlugin({ port: sftpPort, listen: '127.0.0.1', checkEveryMs: 200 }),
    ],
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  token = await tp.token()
  client = sftpClient(clientDir, sftpPort)
  await waitFor('the SFTP server to listen', () => listening(sftpPort), 30_000)
}, 60_000)

afterAll(async () => {
  await tp?.panel.close()
  // The local node's nginx and PHP-FPM outlive the panel (they serve on while it restarts): stopped here.
  removeNodeLeftovers(sitesDir)
  rmSync(folder, { recursive: true, force: true })
})

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

const call = (method: string, path: string, body?: unknown, as = token) =>
  tp.request(method, `/api/v1${path}`, { token: as, ...(body === undefined ? {} : { body }) })

async function json<T>(response: Response, status: number): Promise<T> {
  const text = await response.text()
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`)
  return (text ? JSON.parse(text) : null) as T
}

/** Polls every 50 ms (each request counts against the rate limit). */
const poll = <T>(what: string, probe: () => Promise<T>, ms = 30_000) =>
  waitFor(
    what,
    async () => {
      const value = await probe()
      if (!value) await Bun.sleep(50)
      return value
    },
    ms,
  )

const newCustomer = async (name: string) =>
  (await json<{ id: string }>(await call('POST', '/customers', { name }), 201)).id

async function newSite(customerId: string, domain: string): Promise<Site> {
  const site = await json<Site>(
    await call('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain }),
    201,
  )
  return poll(`site ${domain}`, async () => {
    const now = await json<Site>(await call('GET', `/sites/${site.id}`), 200)
    return now.status === 'active' ? now : null
  })
}

const homeOf = (site: Site) => join(sitesDir, 'sites', site.id)

/** An Ed25519 key pair made with ssh-keygen: the private key's path and the public line. */
function keyPair(name: string, type = 'ed25519', bits?: number): { path: string; publicKey: string } {
  const path = join(clientDir, name)
  const made = Bun.spawnSync([
    'ssh-keygen',
    '-q',
    '-t',
    type,
    ...(bits ? ['-b', String(bits)] : []),
    '-N',
    '',
    '-C',
    `${name}@test`,
    '-f',
    path,
  ])
  if (made.exitCode !== 0) throw new Error(made.stderr.toString())
  return { path, publicKey: readFileSync(`${path}.pub`, 'utf8').trim() }
}

/**
 * That the server ended the open session: ssh reports the disconnection at once, and sftp (which blocks reading
 * its next batch command) fails the next command and exits.
 */
async function expectCut(session: ReturnType<ReturnType<typeof sftpClient>['open']>): Promise<void> {
  const before = session.state.output.length
  await waitFor(
    'the server to end the session',
    async () => /Received disconnect|Connection closed/.test(session.state.output) || null,
    20_000,
  )
  session.send('ls /htdocs')
  const code = await Promise.race([session.exited, Bun.sleep(10_000).then(() => 'still open')])
  session.kill()
  expect(code).not.toBe('still open')
  expect(code).not.toBe(0)
  expect(session.state.output.slice(before)).not.toContain('index.html')
}

const auditOf = async (subject: string) =>
  (
    await json<{ items: { action: string; details: Record<string, unknown> }[] }>(
      await call('GET', `/audit?subject=${subject}`),
      200,
    )
  ).items

describe('SFTP accounts', () => {
  let customerId: string
  let site: Site
  let other: Site

  beforeAll(async () => {
    customerId = await newCustomer('Files Co')
    site = await newSite(customerId, 'files.sftp.test')
    other = await newSite(customerId, 'other.sftp.test')
  }, 120_000)

  test('a generated password logs in: put, get, ls, rename and rm work as the site’s user', async () => {
    const account = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'deploy' }),
      201,
    )
    expect(account).toMatchObject({
      username: `${site.handle}.deploy`,
      passwordEnabled: true,
      publicKeys: [],
      readOnly: false,
      expiresAt: null,
      host: 'localhost',
      port: sftpPort,
    })
    expect(account.password).toMatch(/^[A-Za-z0-9]{24}$/)
    expect(account.hostKeyFingerprints).toHaveLength(2)
    for (const fingerprint of account.hostKeyFingerprints)
      expect(fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/)
    // Shown once: never in a read or a list.
    const listed = await json<{ items: Account[] }>(await call('GET', `/sites/${site.id}/sftp-users`), 200)
    expect(listed.items.map((item) => item.id)).toEqual([account.id])
    expect(listed.items[0]?.password).toBeUndefined()
    expect(
      (await json<Account>(await call('GET', `/sites/${site.id}/sftp-users/${account.id}`), 200)).password,
    ).toBe(undefined)

    const upload = join(clientDir, 'upload.txt')
    writeFileSync(upload, 'uploaded through sftp\n')
    const credential = { password: account.password ?? '' }
    const run = await client.run(account.username, credential, [
      'ls /',
      `put ${upload} /htdocs/up.txt`,
      `get /htdocs/up.txt ${join(clientDir, 'down.txt')}`,
      'rename /htdocs/up.txt /htdocs/renamed.txt',
      'ls -l /htdocs',
    ])
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    expect(run.stdout).toMatch(/\/htdocs\s+\/logs\s+\/tmp/)
    expect(run.stdout).toContain('renamed.txt')
    expect(readFileSync(join(clientDir, 'down.txt'), 'utf8')).toBe('uploaded through sftp\n')
    // Written as the site's user, in the site's document root.
    const written = statSync(join(homeOf(site), 'htdocs', 'renamed.txt'))
    expect(written.uid).toBe(statSync(join(homeOf(site), 'htdocs')).uid)
    expect(written.uid).not.toBe(0)
    // The host key the client met is one the answer named.
    const seen = Bun.spawnSync(['ssh-keygen', '-l', '-f', client.knownHosts]).stdout.toString()
    const fingerprint = /SHA256:\S+/.exec(seen)?.[0]
    expect(account.hostKeyFingerprints).toContain(fingerprint ?? 'none')

    const removal = await client.run(account.username, credential, ['rm /htdocs/renamed.txt', 'ls /htdocs'])
    expect(removal.code, removal.stderr).toBe(0)
    expect(() => statSync(join(homeOf(site), 'htdocs', 'renamed.txt'))).toThrow()

    const actions = (await auditOf(account.id)).map((entry) => entry.action)
    expect(actions).toContain('sftp_user.create')
    // Never the password, nor a hash, in the audit entry.
    expect(JSON.stringify(await auditOf(account.id))).not.toContain(account.password ?? '')
  }, 60_000)

  test('nothing outside the site is reachable: climbing, /etc/passwd, links to the node and to another site', async () => {
    const account = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'explorer' }),
      201,
    )
    const credential = { password: account.password ?? '' }
    const htdocs = join(homeOf(site), 'htdocs')
    symlinkSync('/etc/passwd', join(htdocs, 'passwd-link'))
    symlinkSync(join(homeOf(other), 'htdocs', 'index.html'), join(htdocs, 'other-site'))
    symlinkSync('../../other/htdocs', join(htdocs, 'climb'))
    writeFileSync(join(homeOf(other), 'htdocs', 'secret.txt'), 'the other site’s\n')

    const climbing = await client.run(account.username, credential, [
      'cd /..',
      'pwd',
      'ls -a',
      'cd /htdocs/..',
      'pwd',
    ])
    expect(climbing.code, climbing.stderr).toBe(0)
    expect(climbing.stdout).toContain('Remote working directory: /\n')
    expect(climbing.stdout).not.toMatch(/\b(usr|var|home|root|sites)\b/)

    const passwd = join(clientDir, 'passwd')
    const etc = await client.run(account.username, credential, [`-get /etc/passwd ${passwd}`, '-ls /etc'])
    // The sandbox's own /etc/passwd names the site's user alone; the node's is not there.
    const got = (() => {
      try {
        return readFileSync(passwd, 'utf8')
      } catch {
        return ''
      }
    })()
    expect(got).not.toContain('root:')
    expect(etc.stdout + etc.stderr).not.toContain('root:')

    // A link to /etc/passwd resolves inside the sandbox: to its own file, never the node's.
    const linked = join(clientDir, 'linked')
    await client.run(account.username, credential, [`-get /htdocs/passwd-link ${linked}`])
    expect(readFileSync(linked, 'utf8').split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^s_files-sftp-test_[a-z2-7]{8}:x:\d+:\d+::\/:\/usr\/sbin\/nologin$/),
    ])
    for (const [path, what] of [
      ['/htdocs/other-site', 'a link to another site’s file'],
      ['/htdocs/climb/secret.txt', 'a relative link climbing out'],
      [`${homeOf(other)}/htdocs/secret.txt`, 'another site’s path'],
    ] as const) {
      const target = join(clientDir, 'leak')
      rmSync(target, { force: true })
      const run = await client.run(account.username, credential, [`get ${path} ${target}`])
      expect(run.code, `${what} was readable`).not.toBe(0)
      expect(() => statSync(target), what).toThrow()
    }
    // No new links, nothing written beside the site's folders, logs read-only.
    const upload = join(clientDir, 'upload.txt')
    for (const command of [
      'ln -s /etc/passwd /htdocs/made-link',
      `put ${upload} /x.txt`,
      `put ${upload} /logs/x.txt`,
    ]) {
      const run = await client.run(account.username, credential, [command])
      expect(run.code, command).not.toBe(0)
    }
    expect(() => statSync(join(htdocs, 'made-link'))).toThrow()
    expect(() => statSync(join(homeOf(site), 'logs', 'x.txt'))).toThrow()
  }, 60_000)

  test('keys log in; read-only refuses writes; bad keys are refused with a code', async () => {
    const key = keyPair('id_deploy')
    const account = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users`, {
        name: 'reader',
        publicKeys: [key.publicKey],
        readOnly: true,
      }),
      201,
    )
    expect(account.password).toBeUndefined()
    expect(account).toMatchObject({ passwordEnabled: false, readOnly: true })
    expect(account.publicKeys[0]).toMatchObject({ type: 'ssh-ed25519', comment: 'id_deploy@test' })
    const credential: Credential = { key: key.path }
    const reading = await client.run(account.username, credential, ['ls /htdocs'])
    expect(reading.code, reading.stderr).toBe(0)
    expect(reading.stdout).toContain('index.html')
    const upload = join(clientDir, 'upload.txt')
    const writing = await client.run(account.username, credential, [`put ${upload} /htdocs/ro.txt`])
    expect(writing.code).not.toBe(0)
    expect(() => statSync(join(homeOf(site), 'htdocs', 'ro.txt'))).toThrow()
    // A key not the account's does not log in.
    const stranger = keyPair('id_stranger')
    expect((await client.run(account.username, { key: stranger.path }, ['ls /'])).code).not.toBe(0)

    const weakRsa = keyPair('id_weak', 'rsa', 1024)
    const refused = await call('POST', `/sites/${site.id}/sftp-users`, {
      publicKeys: ['ssh-ed25519 AAAAnotakey', 'ssh-dss AAAAB3NzaC1kc3M=', weakRsa.publicKey],
    })
    const problem = await expectProblem(refused, 422, 'validation_failed')
    expect(problem.errors).toEqual(
      [0, 1, 2].map((index) =>
        expect.objectContaining({
          location: `body.publicKeys.${index}`,
          code: 'invalid_public_key',
        }),
      ),
    )
    await expectProblem(
      await call('POST', `/sites/${site.id}/sftp-users`, { publicKeys: [weakRsa.publicKey] }),
      422,
      'invalid_public_key',
    )
    await expectProblem(
      await call('POST', `/sites/${site.id}/sftp-users`, { password: false }),
      422,
      'sftp_credentials_required',
    )
    await expectFieldProblem(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'Not_Valid' }),
      422,
      'invalid_sftp_name',
      'body.name',
    )
    await expectProblem(
      await call('POST', `/sites/${site.id}/sftp-users`, { expiresAt: '2001-01-01T00:00:00Z' }),
      422,
      'invalid_expiry',
    )
    await expectProblem(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'reader' }),
      409,
      'sftp_username_taken',
    )
  }, 60_000)

  test('an SFTP session’s server runs in the site’s group as its user (its limits hold, and it ends with the site)', async () => {
    const account = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'grouped' }),
      201,
    )
    const session = client.open(account.username, { password: account.password ?? '' })
    session.send('ls /htdocs')
    await waitFor(
      'the session to list',
      async () => session.state.output.includes('index.html') || null,
      20_000,
    )
    const uid = statSync(join(homeOf(site), 'htdocs')).uid
    const servers = processesOfUid(uid).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sftp-server')
      } catch {
        return false
      }
    })
    expect(servers.length).toBeGreaterThan(0)
    const path = siteGroupPath(sitesDir, site.id)
    for (const pid of servers) expect(cgroupOf(pid)).toMatch(new RegExp(`:${path}$`, 'm'))
    session.kill()
  }, 60_000)

  test('a deleted account no longer logs in, and its session open meanwhile is cut', async () => {
    const account = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'leaving' }),
      201,
    )
    const credential = { password: account.password ?? '' }
    const session = client.open(account.username, credential)
    session.send('ls /htdocs')
    await waitFor(
      'the session to list',
      async () => session.state.output.includes('index.html') || null,
      20_000,
    )

    const deletedAt = performance.now()
    expect((await call('DELETE', `/sites/${site.id}/sftp-users/${account.id}`)).status).toBe(204)
    await expectCut(session)
    console.log(`session cut ${(performance.now() - deletedAt).toFixed(0)} ms after DELETE was sent`)

    const again = await client.run(account.username, credential, ['ls /'])
    expect(again.code).not.toBe(0)
    expect(again.stderr).toMatch(/Permission denied/)
    expect((await call('GET', `/sites/${site.id}/sftp-users/${account.id}`)).status).toBe(404)
    const entry = (await auditOf(account.id)).find((item) => item.action === 'sftp_user.delete')
    expect(entry?.details).toMatchObject({ username: account.username, sessionsEnded: 1 })
  }, 60_000)

  test('an upload past the site’s disk quota fails: the kernel refuses the write, and the site keeps what fitted', async () => {
    const created = await json<Site>(
      await call('POST', '/sites', {
        customerId,
        name: 'quota.sftp.test',
        type: 'wordpress',
        domain: 'quota.sftp.test',
        // A placeholder here: this panel has no WordPress module.
        limits: { diskMB: 20 },
      }),
      201,
    )
    const quoted = await poll('the site with a quota', async () => {
      const now = await json<Site>(await call('GET', `/sites/${created.id}`), 200)
      return now.status === 'active' ? now : null
    })
    const account = await json<Account>(
      await call('POST', `/sites/${quoted.id}/sftp-users`, { name: 'filler' }),
      201,
    )
    const big = join(clientDir, 'big.bin')
    writeFileSync(big, new Uint8Array(30 * 1024 * 1024))
    const small = join(clientDir, 'small.bin')
    writeFileSync(small, new Uint8Array(1024 * 1024))
    const credential = { password: account.password ?? '' }
    const run = await client.run(account.username, credential, [`put ${big} /htdocs/big.bin`])
    expect(run.code).not.toBe(0)
    expect(`${run.stdout}\n${run.stderr}`).toMatch(/Failure|No space left/)
    // Room again once the partial upload is gone: a small one fits.
    const after = await client.run(account.username, credential, [
      'rm /htdocs/big.bin',
      `put ${small} /htdocs/small.bin`,
    ])
    expect(after.code, after.stderr).toBe(0)
    expect(statSync(join(homeOf(quoted), 'htdocs', 'small.bin')).size).toBe(1024 * 1024)
  }, 60_000)

  test('a rotated password ends live sessions; the old one stops working, the new one works', async () => {
    const account = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'rotating' }),
      201,
    )
    const old = { password: account.password ?? '' }
    const session = client.open(account.username, old)
    session.send('ls /htdocs')
    await waitFor(
      'the session to list',
      async () => session.state.output.includes('index.html') || null,
      20_000,
    )
    const rotated = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users/${account.id}/password`),
      200,
    )
    expect(rotated.password).toMatch(/^[A-Za-z0-9]{24}$/)
    expect(rotated.password).not.toBe(account.password)
    await expectCut(session)
    expect((await client.run(account.username, old, ['ls /'])).code).not.toBe(0)
    const fresh = await client.run(account.username, { password: rotated.password ?? '' }, ['ls /'])
    expect(fresh.code, fresh.stderr).toBe(0)
    expect((await auditOf(account.id)).map((entry) => entry.action)).toContain('sftp_user.rotate_password')
  }, 60_000)

  test('another customer’s site is 404 for every operation', async () => {
    const account = await json<Account>(
      await call('POST', `/sites/${site.id}/sftp-users`, { name: 'mine' }),
      201,
    )
    const strangerCustomer = await newCustomer('Stranger Co')
    const stranger = await tp.token({ customerId: strangerCustomer })
    await expectProblem(
      await call('GET', `/sites/${site.id}/sftp-users`, undefined, stranger),
      404,
      'not_found',
    )
    await expectProblem(await call('POST', `/sites/${site.id}/sftp-users`, {}, stranger), 404, 'not_found')
    await expectProblem(
      await call('GET', `/sites/${site.id}/sftp-users/${account.id}`, undefined, stranger),
      404,
      'not_found',
    )
    await expectProblem(
      await call('POST', `/sites/${site.id}/sftp-users/${account.id}/password`, undefined, stranger),
      404,
      'not_found',
    )
    await expectProblem(
      await call('DELETE', `/sites/${site.id}/sftp-users/${account.id}`, undefined, stranger),
      404,
      'not_found',
    )
    // The account under another site of the same customer is 404 too.
    await expectProblem(await call('GET', `/sites/${other.id}/sftp-users/${account.id}`), 404, 'not_found')
  })

  test('a suspended site refuses new accounts and logins, and its live session is cut', async () => {
    const held = await newSite(customerId, 'held.sftp.test')
    const account = await json<Account>(
      await call('POST', `/sites/${held.id}/sftp-users`, { name: 'web' }),
      201,
    )
    const credential = { password: account.password ?? '' }
    const session = client.open(account.username, credential)
    session.send('ls /htdocs')
    await waitFor(
      'the session to list',
      async () => session.state.output.includes('index.html') || null,
      20_000,
    )

    await json(await call('POST', `/sites/${held.id}/suspend`, { reason: 'abuse' }), 200)
    // The node's suspension ends what runs as the site's user (the session's sftp-server), and the server the
    // connection with it.
    await expectCut(session)
    await expectProblem(await call('POST', `/sites/${held.id}/sftp-users`, {}), 409, 'site_suspended')
    await expectProblem(
      await call('POST', `/sites/${held.id}/sftp-users/${account.id}/password`),
      409,
      'site_suspended',
    )
    expect((await client.run(account.username, credential, ['ls /'])).code).not.toBe(0)
    // Listing and deleting still work: revoking access is always allowed.
    expect((await call('GET', `/sites/${held.id}/sftp-users`)).status).toBe(200)
    expect((await call('DELETE', `/sites/${held.id}/sftp-users/${account.id}`)).status).toBe(204)
  }, 90_000)
})
