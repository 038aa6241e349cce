// Sites' uids are never reused: a site made after another was deleted gets a new uid (not the highest free one,
// which `useradd` alone gave: the deleted site's), and a user made before the node kept its counter keeps its own.
// The ids come from a counter in the data directory that only counts up, above every user and group in its range.

import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../../../hosts/testing/index.ts'
import type { SiteSpec } from '../contract.ts'
import { never, processesOf, servingDataDir, sh, siteSpec } from '../testing/serving.ts'
import { createSiteRuntime } from './create-site-runtime.ts'
import { runtimeLayout, siteLayout } from './layout.ts'
import { nextSiteId, siteIdRange } from './site-uids.ts'

const scratch = mkdtempSync(join(tmpdir(), 'plinth-site-uids-'))
const dataDir = servingDataDir('plinth-uids-')
const runtime = createSiteRuntime({ dataDir, httpPort: freePort(), httpsPort: freePort() })
const layout = runtimeLayout(dataDir)
const first = siteSpec({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9U01',
  handle: 'uidone',
  domain: 'uid-one.example.com',
})
const second = siteSpec({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9U02',
  handle: 'uidtwo',
  domain: 'uid-two.example.com',
})
const third = siteSpec({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9U03',
  handle: 'uidthree',
  domain: 'uid-three.example.com',
})

afterAll(async () => {
  for (const each of [first, second, third]) await runtime.delete(each, never()).catch(() => {})
  await runtime.stop().catch(() => {})
  for (const pid of processesOf(dataDir)) process.kill(pid, 'SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(scratch, { recursive: true, force: true })
})

/** The site's user's uid and gid, or null without one. */
function idsOf(spec: SiteSpec): { uid: number; gid: number } | null {
  const found = sh(['getent', 'passwd', siteLayout(layout, spec).user])
  if (found.code !== 0) return null
  const [, , uid, gid] = found.stdout.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}
const counted = () => Number(readFileSync(layout.siteIds, 'utf8'))

describe('a site’s uid', () => {
  test('a site made after another was deleted gets a uid never given before; its group the same number', async () => {
    await runtime.start()
    await runtime.provision(first, never())
    const made = idsOf(first)
    expect(made).not.toBeNull()
    const { uid } = made as { uid: number; gid: number }
    expect(made?.gid).toBe(uid)
    expect(counted()).toBe(uid)
    await runtime.delete(first, never())
    expect(idsOf(first)).toBeNull()

    await runtime.provision(second, never())
    const next = idsOf(second)
    expect(next?.uid).toBeGreaterThan(uid)
    expect(next?.gid).toBe(next?.uid)
    expect(counted()).toBe(next?.uid as number)
  })

  test('a user made before the node kept a counter keeps its uid; the next site’s goes above it', async () => {
    const before = idsOf(second)
    // A node installed before the counter: no file, users made by `useradd` alone.
    rmSync(layout.siteIds)
    await runtime.provision(second, never())
    expect(idsOf(second)).toEqual(before)
    expect(existsSync(layout.siteIds)).toBe(false)
    await runtime.provision(third, never())
    expect(idsOf(third)?.uid).toBeGreaterThan(before?.uid as number)
  })
})

describe('the counter', () => {
  const range = { first: 1000, last: 60000 }
  test('counts up from the last id given, past the range refused', async () => {
    const counter = join(scratch, 'counter')
    writeFileSync(counter, '59998\n')
    expect(await nextSiteId(counter, range, never())).toBe(59999)
    expect(await nextSiteId(counter, range, never())).toBe(60000)
    expect(readFileSync(counter, 'utf8')).toBe('60000\n')
    await expect(nextSiteId(counter, range, never())).rejects.toMatchObject({ code: 'site_uids_exhausted' })
    expect(readFileSync(counter, 'utf8')).toBe('60000\n')
  })

  test('without a counter it starts above every user and group of the system in its range', async () => {
    const counter = join(scratch, 'fresh')
    // The system's own users (root, nobody at 65534) are outside the range and do not count.
    const taken = ['passwd', 'group'].flatMap((database) =>
      sh(['getent', database])
        .stdout.split('\n')
        .map((line) => Number(line.split(':')[2]))
        .filter((id) => id >= range.first && id <= range.last),
    )
    const id = await nextSiteId(counter, range, never())
    expect(id).toBeGreaterThan(Math.max(range.first - 1, ...taken))
    expect(id).toBeLessThanOrEqual(range.last)
  })

  test('one that holds anything but an id is refused, never guessed again', async () => {
    const counter = join(scratch, 'broken')
    writeFileSync(counter, 'garbage')
    await expect(nextSiteId(counter, range, never())).rejects.toThrow('holds no site uid')
  })

  test('the range is the system’s for regular users and groups, 1000–60000 where it says none', async () => {
    const defs = join(scratch, 'login.defs')
    writeFileSync(defs, 'UID_MIN\t\t\t 2000\nUID_MAX 50000\n# GID_MIN 9\nGID_MIN 1500\nGID_MAX\t40000\n')
    expect(await siteIdRange(defs)).toEqual({ first: 2000, last: 40000 })
    expect(await siteIdRange(join(scratch, 'absent'))).toEqual({ first: 1000, last: 60000 })
  })
})
