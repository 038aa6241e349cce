// The files API as an oracle, tried the way one site's customer would try it against another site on the same node:
// links planted in its own site (absolute, relative, through a chain, to a folder and to a file) point at a folder
// of the other site that the customer's Unix user cannot enter, and every endpoint is asked about paths through and
// at those links, spelled plainly, with `..` and percent-encoded. The answers are recorded while the other site's
// folder exists and again once it is gone: they must be the same, byte for byte (but for the request's own id), or
// the API tells one site what another has, which its own user could never learn.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  chmodSync,
  existsSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import { endServingPanel, type TestPanel, waitFor } from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'
import { filesTestFolder, startFilesPanel } from './testing/local-files-panel.ts'

const { folder, nodeDir } = filesTestFolder('plinth-files-oracle-')

let tp: TestPanel
let staff: string
let attacker: Site
let victim: Site
let home: string
let victimHome: string

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

async function newSite(customerId: string, domain: string): Promise<Site> {
  const created = (await (
    await api('POST', '/sites', { customerId, name: domain, type: 'wordpress', domain })
  ).json()) as Site
  return waitFor(
    `site ${domain}`,
    async () => {
      const now = (await (await api('GET', `/sites/${created.id}`)).json()) as Site
      if (now.status !== 'active') await Bun.sleep(50)
      return now.status === 'active' ? now : null
    },
    30_000,
  )
}

/** A job's outcome once it has finished: its status and error, nothing that differs between two runs. */
async function jobOutcome(jobId: string): Promise<unknown> {
  const job = await waitFor(
    `job ${jobId}`,
    async () => {
      const now = (await (await api('GET', `/jobs/${jobId}`)).json()) as Record<string, unknown>
      if (now.finishedAt === null) await Bun.sleep(50)
      return now.finishedAt === null ? null : now
    },
    60_000,
  )
  return { status: job.status, error: job.error, result: job.result }
}

/** What an answer says, but for what differs between any two requests (ids of the request, upload or job). */
async function said(response: Response): Promise<unknown> {
  const text = await response.text()
  const type = response.headers.get('content-type') ?? ''
  if (!type.includes('json')) return { status: response.status, text }
  const body = JSON.parse(text) as Record<string, unknown>
  if (response.status === 202 && typeof body.jobId === 'string')
    return { status: 202, job: await jobOutcome(body.jobId) }
  const { instance: _instance, requestId: _requestId, id: _id, expiresAt: _expires, ...rest } = body
  return { status: response.status, ...rest }
}

/** Every question the attacker asks about `at`, a path in its own site through or at a planted link. */
function questions(at: string): [string, () => Promise<Response>][] {
  const id = attacker.id
  const q = (path: string) => encodeURIComponent(path)
  return [
    ['list through', () => api('GET', `/sites/${id}/files?path=${q(`${at}/`)}`)],
    ['list inside', () => api('GET', `/sites/${id}/files?path=${q(`${at}/sub`)}`)],
    ['stat inside', () => api('GET', `/sites/${id}/files/stat?path=${q(`${at}/secret.txt`)}`)],
    ['stat deeper', () => api('GET', `/sites/${id}/files/stat?path=${q(`${at}/sub/deeper.txt`)}`)],
    ['read inside', () => api('GET', `/sites/${id}/files/content?path=${q(`${at}/secret.txt`)}`)],
    ['read at', () => api('GET', `/sites/${id}/files/content?path=${q(at)}`)],
    [
      'read with .. after the link',
      () => api('GET', `/sites/${id}/files/content?path=${q(`${at}/sub/../secret.txt`)}`),
    ],
    [
      'read percent-encoded twice',
      () => api('GET', `/sites/${id}/files/content?path=${q(`${at}/%2e%2e/secret.txt`)}`),
    ],
    [
      'read with .. encoded',
      () =>
        api(
          'GET',
          `/sites/${id}/files/content?path=${at.split('/').map(encodeURIComponent).join('%2F')}%2Fsub%2F%2e%2e%2Fsecret.txt`,
        ),
    ],
    [
      'write inside',
      () =>
        api('PUT', `/sites/${id}/files/content?path=${q(`${at}/planted.txt`)}`, new Uint8Array([1, 2, 3]), {
          'content-type': 'application/octet-stream',
        }),
    ],
    [
      'write over a file inside',
      () =>
        api('PUT', `/sites/${id}/files/content?path=${q(`${at}/secret.txt`)}`, new Uint8Array([1]), {
          'content-type': 'application/octet-stream',
          'if-match': '*',
        }),
    ],
    ['mkdir inside', () => api('POST', `/sites/${id}/files/directories`, { path: `${at}/made` })],
    [
      'mkdir with parents inside',
      () => api('POST', `/sites/${id}/files/directories`, { path: `${at}/sub/made/deeper`, parents: true }),
    ],
    [
      'move out of it',
      () => api('POST', `/sites/${id}/files/move`, { from: `${at}/secret.txt`, to: '/htdocs/stolen.txt' }),
    ],
    [
      'move into it',
      () => api('POST', `/sites/${id}/files/move`, { from: '/htdocs/bait.txt', to: `${at}/bait.txt` }),
    ],
    [
      'copy out of it',
      () => api('POST', `/sites/${id}/files/copy`, { from: `${at}/sub`, to: '/htdocs/stolen' }),
    ],
    [
      'copy into it',
      () => api('POST', `/sites/${id}/files/copy`, { from: '/htdocs/bait.txt', to: `${at}/secret.txt` }),
    ],
    ['delete inside', () => api('POST', `/sites/${id}/files/delete`, { paths: [`${at}/secret.txt`] })],
    [
      'chmod inside',
      () => api('POST', `/sites/${id}/files/chmod`, { path: `${at}/secret.txt`, mode: '777' }),
    ],
    [
      'start an upload inside',
      () => api('POST', `/sites/${id}/files/uploads`, { path: `${at}/up.txt`, size: 3 }),
    ],
    [
      'start an upload over a file inside',
      () => api('POST', `/sites/${id}/files/uploads`, { path: `${at}/secret.txt`, size: 3, ifMatch: '*' }),
    ],
    [
      'download link inside',
      () => api('POST', `/sites/${id}/files/download-links`, { path: `${at}/secret.txt` }),
    ],
    [
      'archive out of it',
      () => api('POST', `/sites/${id}/files/archive`, { paths: [`${at}/secret.txt`], to: '/htdocs/out.zip' }),
    ],
    [
      'archive into it',
      () => api('POST', `/sites/${id}/files/archive`, { paths: ['/htdocs/bait.txt'], to: `${at}/in.tar.gz` }),
    ],
    [
      'extract from it',
      () => api('POST', `/sites/${id}/files/extract`, { path: `${at}/backup.zip`, to: '/htdocs/ex' }),
    ],
    [
      'extract into it',
      () => api('POST', `/sites/${id}/files/extract`, { path: '/htdocs/bait.zip', to: `${at}/sub/ex` }),
    ],
  ]
}

/** The links the attacker plants in its `/htdocs`, by name: each leads into the victim's private folder. */
function plants(): Record<string, string> {
  const privateDir = join(victimHome, 'htdocs', 'private')
  return {
    absolute: privateDir,
    relative: relative(join(home, 'htdocs'), privateDir),
    file: join(privateDir, 'secret.txt'),
    'through-proc': `/proc/self/root${privateDir}`,
    chain: 'absolute',
    'chain-in-folder': 'hop/absolute-again',
  }
}

/** The places asked about: through each link, and a `..` that climbs out of the site beside it. */
function places(): string[] {
  return [
    ...Object.keys(plants()).map((name) => `/htdocs/${name}`),
    `/htdocs/../../${victim.id}/htdocs/private`,
  ]
}

/** The victim's private folder, which only its own user may enter, with a file and a folder in it. */
function makeVictimsPrivateFolder(): void {
  const privateDir = join(victimHome, 'htdocs', 'private')
  const owner = statSync(join(victimHome, 'htdocs'))
  mkdirSync(join(privateDir, 'sub'), { recursive: true })
  writeFileSync(join(privateDir, 'secret.txt'), 'the victim’s secret')
  writeFileSync(join(privateDir, 'sub', 'deeper.txt'), 'deeper')
  writeFileSync(join(privateDir, 'backup.zip'), 'not really a zip')
  for (const path of ['', 'sub', 'secret.txt', 'sub/deeper.txt', 'backup.zip'])
    lchownSync(join(privateDir, path), owner.uid, owner.gid)
  chmodSync(privateDir, 0o700)
}

beforeAll(async () => {
  tp = await startFilesPanel(folder)
  staff = await tp.token()
  const customer = (await (await api('POST', '/customers', { name: 'Mallory' })).json()) as { id: string }
  const neighbour = (await (await api('POST', '/customers', { name: 'Victim' })).json()) as { id: string }
  attacker = await newSite(customer.id, 'mallory.example.com')
  victim = await newSite(neighbour.id, 'victim.example.com')
  home = join(nodeDir, 'sites', attacker.id)
  victimHome = join(nodeDir, 'sites', victim.id)
  // Planted as the attacker's own code would plant them: owned by its user.
  const owner = statSync(join(home, 'htdocs'))
  mkdirSync(join(home, 'htdocs', 'hop'))
  lchownSync(join(home, 'htdocs', 'hop'), owner.uid, owner.gid)
  symlinkSync(join(home, 'htdocs', 'absolute'), join(home, 'htdocs', 'hop', 'absolute-again'))
  lchownSync(join(home, 'htdocs', 'hop', 'absolute-again'), owner.uid, owner.gid)
  for (const [name, target] of Object.entries(plants())) {
    symlinkSync(target, join(home, 'htdocs', name))
    lchownSync(join(home, 'htdocs', name), owner.uid, owner.gid)
  }
  for (const [name, bytes] of [
    ['bait.txt', 'bait'],
    ['bait.zip', 'not a zip either'],
  ] as const) {
    writeFileSync(join(home, 'htdocs', name), bytes)
    lchownSync(join(home, 'htdocs', name), owner.uid, owner.gid)
  }
}, 120_000)

afterAll(async () => {
  await endServingPanel(tp, { token: staff, siteIds: [attacker?.id, victim?.id], nodeDir, remove: [folder] })
}, 60_000)

/** Every answer, by place and question. */
async function askEverything(): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {}
  for (const place of places())
    for (const [question, ask] of questions(place)) answers[`${place}: ${question}`] = await said(await ask())
  return answers
}

describe('another site’s files, asked about through the files API', () => {
  test('the answers are the same whether they exist or not, and nothing of theirs is read or changed', async () => {
    makeVictimsPrivateFolder()
    const whileThere = await askEverything()
    // Nothing the attacker asked for reached the victim's files.
    expect(readFileSync(join(victimHome, 'htdocs', 'private', 'secret.txt'), 'utf8')).toBe(
      'the victim’s secret',
    )
    expect(statSync(join(victimHome, 'htdocs', 'private', 'secret.txt')).mode & 0o777).not.toBe(0o777)
    expect(existsSync(join(victimHome, 'htdocs', 'private', 'planted.txt'))).toBe(false)
    expect(existsSync(join(victimHome, 'htdocs', 'private', 'made'))).toBe(false)
    expect(existsSync(join(home, 'htdocs', 'stolen.txt'))).toBe(false)
    expect(existsSync(join(home, 'htdocs', 'stolen'))).toBe(false)
    expect(existsSync(join(home, 'htdocs', 'out.zip'))).toBe(false)
    for (const [asked, answer] of Object.entries(whileThere)) {
      const { status } = answer as { status: number; job?: { status: string } }
      const job = (answer as { job?: { status: string } }).job
      // Every question is refused (a job fails): none reads, lists or changes the victim's folder.
      if (status < 400 && !(status === 202 && job?.status === 'failed'))
        throw new Error(`${asked} was answered ${JSON.stringify(answer)}`)
    }

    rmSync(join(victimHome, 'htdocs', 'private'), { recursive: true, force: true })
    const whileGone = await askEverything()
    const told = Object.keys(whileThere).filter(
      (asked) => JSON.stringify(whileGone[asked]) !== JSON.stringify(whileThere[asked]),
    )
    expect(told.map((asked) => ({ asked, there: whileThere[asked], gone: whileGone[asked] }))).toEqual([])
    expect(Object.keys(whileGone)).toHaveLength(Object.keys(whileThere).length)
  }, 300_000)
})
