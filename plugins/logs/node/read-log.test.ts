import { afterAll, describe, expect, test } from 'bun:test'
import { appendFileSync, linkSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseAccessLine, parseNginxErrorLine, parsePhpLine } from './parse.ts'
import { followLog, rotatedPaths, tailLog } from './read-log.ts'

const dir = mkdtempSync(join(tmpdir(), 'plinth-logs-read-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const mine = process.getuid?.() ?? 0
const me = (uid: number) => uid === mine

const access = (minute: number, status: number, path = '/') =>
  `127.0.0.1 - - [29/Nov/2026:16:${String(minute).padStart(2, '0')}:00 +0100] "GET ${path} HTTP/1.1" ${status} 12 "-" "curl/8.0" 180\n`

describe('parsing', () => {
  test('an access line in the plinth format is read field by field, its time in UTC', () => {
    const entry = parseAccessLine(
      '203.0.113.9 - - [29/Nov/2026:16:47:24 +0100] "POST /wp-login.php?a=\\x22b HTTP/2.0" 302 5 "https://x.test/" "Mozilla/5.0" 420',
    )
    expect(entry).toEqual({
      time: '2026-11-29T15:47:24.000Z',
      remoteAddress: '203.0.113.9',
      method: 'POST',
      path: '/wp-login.php?a="b',
      protocol: 'HTTP/2.0',
      status: 302,
      bytes: 5,
      bytesSent: 420,
      referrer: 'https://x.test/',
      userAgent: 'Mozilla/5.0',
    })
    expect(parseAccessLine('garbage')).toBeNull()
  })

  test('nginx error lines and PHP error lines give their level and message', () => {
    expect(parseNginxErrorLine('2026/11/29 16:47:24 [error] 12#12: *3 open() failed')?.level).toBe('error')
    expect(parsePhpLine('[29-Nov-2026 16:47:24 UTC] PHP Fatal error:  Uncaught Error: x')).toEqual({
      time: '2026-11-29T16:47:24.000Z',
      level: 'fatal',
      message: 'Uncaught Error: x',
    })
    expect(parsePhpLine('[29-Nov-2026 16:47:24 Europe/Paris] PHP Warning:  y')?.time).toBe(
      '2026-11-29T15:47:24.000Z',
    )
    expect(parsePhpLine('[29-Nov-2026 16:47:24 UTC] my own message')?.level).toBe('message')
    expect(parsePhpLine('#0 {main}')).toBeNull()
  })
})

describe('tail', () => {
  test('the last lines, newest last, through the rotated files, stopping at since, filtered by status', async () => {
    const log = join(dir, 'access.log')
    writeFileSync(`${log}.2`, access(1, 200) + access(2, 500))
    writeFileSync(`${log}.1`, access(3, 404) + access(4, 200))
    writeFileSync(log, `${access(5, 503)}${access(6, 200)}partial line being writ`)
    const all = await tailLog(rotatedPaths(log), me, 'access', 100, {})
    expect(all.entries.map((entry) => ('status' in entry ? entry.status : 0))).toEqual([
      200, 500, 404, 200, 503, 200,
    ])
    expect(all.cursor.offset).toBe(access(5, 503).length + access(6, 200).length)
    const two = await tailLog(rotatedPaths(log), me, 'access', 2, {})
    expect(two.entries.map((entry) => entry.time)).toEqual([
      '2026-11-29T15:05:00.000Z',
      '2026-11-29T15:06:00.000Z',
    ])
    const errors = await tailLog(rotatedPaths(log), me, 'access', 100, { status: [[500, 599]] })
    expect(errors.entries.length).toBe(2)
    const since = await tailLog(rotatedPaths(log), me, 'access', 100, { since: '2026-11-29T15:04:00Z' })
    expect(since.entries.length).toBe(3)
    const small = await tailLog(rotatedPaths(log), me, 'access', 100, {}, 100)
    expect(small.truncated).toBe(true)
  })

  test('a link, a hard link or a file of another owner is not read', async () => {
    const target = join(dir, 'secret')
    writeFileSync(target, access(1, 200))
    const linked = join(dir, 'linked.log')
    symlinkSync(target, linked)
    expect((await tailLog([linked], me, 'access', 10, {})).entries).toEqual([])
    const hard = join(dir, 'hard.log')
    linkSync(target, hard)
    expect((await tailLog([hard], me, 'access', 10, {})).entries).toEqual([])
    const own = join(dir, 'own.log')
    writeFileSync(own, access(1, 200))
    expect((await tailLog([own], (uid: number) => uid === 12345, 'access', 10, {})).entries).toEqual([])
  })

  test('PHP messages keep their stack traces', async () => {
    const log = join(dir, 'php.log')
    writeFileSync(
      log,
      '[29-Nov-2026 16:47:24 UTC] PHP Fatal error:  Uncaught Error: boom\n#0 {main}\n  thrown in /x.php on line 2\n[29-Nov-2026 16:48:00 UTC] PHP Notice:  n\n',
    )
    const { entries } = await tailLog([log], me, 'php', 10, {})
    expect(entries.map((entry) => ('level' in entry ? entry.level : ''))).toEqual(['fatal', 'notice'])
    expect(entries[0]).toHaveProperty(
      'message',
      'Uncaught Error: boom\n#0 {main}\n  thrown in /x.php on line 2',
    )
  })
})

describe('follow', () => {
  test('what was written since the cursor, across a rotation', async () => {
    const log = join(dir, 'follow.log')
    writeFileSync(log, access(1, 200))
    const start = await followLog(log, me, 'access', null, {})
    expect(start.entries).toEqual([])
    appendFileSync(log, access(2, 404))
    const next = await followLog(log, me, 'access', start.cursor, {})
    expect(next.entries.length).toBe(1)
    appendFileSync(log, access(3, 500))
    rmSync(`${log}.1`, { force: true })
    const { renameSync } = await import('node:fs')
    renameSync(log, `${log}.1`)
    writeFileSync(log, access(4, 201))
    const after = await followLog(log, me, 'access', next.cursor, {})
    expect(after.entries.map((entry) => ('status' in entry ? entry.status : 0))).toEqual([500, 201])
    const none = await followLog(log, me, 'access', after.cursor, {})
    expect(none.entries).toEqual([])
  })
})
