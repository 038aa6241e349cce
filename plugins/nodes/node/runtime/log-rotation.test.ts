// Rotation and retention by the node's policy, on a clock the test moves: a log past its size or its age is
// rotated (a fresh one made in its place, or left to its program), its rotated files kept while younger than the
// retention and at most `keep`, then deleted; links are never followed.

import { afterAll, describe, expect, test } from 'bun:test'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pruneRotated, type RotationPolicy, rotateLog, rotationFromEnv } from './log-rotation.ts'
import { rotateSiteLogs } from './site-log-rotation.ts'

const dir = mkdtempSync(join(tmpdir(), 'plinth-rotation-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const day = 86_400_000

describe('rotation', () => {
  test('a log past its size is rotated, a fresh one made in its place, and its master told', async () => {
    const log = join(dir, 'size.log')
    writeFileSync(log, 'x'.repeat(200))
    let told = 0
    const policy: RotationPolicy = { maxBytes: 100, keep: 3 }
    expect(await rotateLog(log, () => told++, policy)).toBe(true)
    expect(readFileSync(`${log}.1`, 'utf8').length).toBe(200)
    expect(readFileSync(log, 'utf8')).toBe('')
    expect(told).toBe(1)
    expect(await rotateLog(log, () => told++, policy)).toBe(false)
  })

  test('a small log is rotated once it is older than maxAgeMs; an empty one is not', async () => {
    const log = join(dir, 'age.log')
    writeFileSync(log, 'one line\n')
    const now = Date.now()
    const policy = (at: number): RotationPolicy => ({ maxBytes: 1e9, keep: 3, maxAgeMs: day, now: () => at })
    expect(await rotateLog(log, () => {}, policy(now))).toBe(false)
    expect(await rotateLog(log, () => {}, policy(now + 2 * day))).toBe(true)
    expect(existsSync(`${log}.1`)).toBe(true)
    // The fresh log is empty: nothing to rotate however old it gets.
    expect(await rotateLog(log, () => {}, policy(now + 4 * day))).toBe(false)
  })

  test('rotated files are kept for the retention, then deleted, oldest first; at most keep of them', async () => {
    const log = join(dir, 'kept.log')
    const now = Date.now()
    for (const [index, age] of [
      [1, 1],
      [2, 10],
      [3, 15],
      [4, 20],
    ] as const) {
      writeFileSync(`${log}.${index}`, `file ${index}\n`)
      utimesSync(`${log}.${index}`, (now - age * day) / 1000, (now - age * day) / 1000)
    }
    expect(await pruneRotated(log, { maxBytes: 1, keep: 10, retentionMs: 14 * day }, now)).toBe(2)
    expect([1, 2, 3, 4].map((index) => existsSync(`${log}.${index}`))).toEqual([true, true, false, false])
    // Two weeks on, the rest have aged out too.
    expect(await pruneRotated(log, { maxBytes: 1, keep: 10, retentionMs: 14 * day }, now + 14 * day)).toBe(2)
    writeFileSync(`${log}.1`, 'a\n')
    writeFileSync(`${log}.2`, 'b\n')
    expect(await pruneRotated(log, { maxBytes: 1, keep: 1, retentionMs: 14 * day }, now)).toBe(1)
    expect(existsSync(`${log}.2`)).toBe(false)
  })

  test('a link in a log’s place is neither rotated nor followed; a PHP log is left for PHP to make again', async () => {
    const target = join(dir, 'target')
    writeFileSync(target, 'y'.repeat(500))
    const linked = join(dir, 'linked.log')
    symlinkSync(target, linked)
    expect(await rotateLog(linked, () => {}, { maxBytes: 1, keep: 2 })).toBe(false)
    expect(lstatSync(linked).isSymbolicLink()).toBe(true)
    const sites = join(dir, 'sites')
    const logs = join(sites, 'site_a', 'logs')
    mkdirSync(join(logs, 'php'), { recursive: true })
    writeFileSync(join(logs, 'access.log'), 'z'.repeat(50))
    writeFileSync(join(logs, 'php', 'error.log'), 'z'.repeat(50))
    let reopened = 0
    await rotateSiteLogs(sites, () => reopened++, { maxBytes: 10, keep: 2 })
    expect(reopened).toBe(1)
    expect(existsSync(join(logs, 'access.log'))).toBe(true)
    expect(existsSync(join(logs, 'access.log.1'))).toBe(true)
    expect(existsSync(join(logs, 'php', 'error.log'))).toBe(false)
    expect(existsSync(join(logs, 'php', 'error.log.1'))).toBe(true)
  })

  test('the node’s environment sets the policy, and a bad setting is named', () => {
    const policy = rotationFromEnv({ LOG_RETENTION_DAYS: '3', LOG_ROTATE_MB: '5' })
    expect(policy.retentionMs).toBe(3 * day)
    expect(policy.maxBytes).toBe(5 * 1024 * 1024)
    expect(rotationFromEnv({}).retentionMs).toBe(14 * day)
    expect(() => rotationFromEnv({ LOG_RETENTION_DAYS: '0' })).toThrow('LOG_RETENTION_DAYS')
  })
})
