// Reading traffic from access logs: from the last offset on, whole lines only, through truncation and rotation.

import { afterAll, describe, expect, test } from 'bun:test'
import { appendFileSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readAccessLogs } from './access-logs.ts'

const root = mkdtempSync(join(tmpdir(), 'plinth-access-logs-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A line in the runtime's `plinth` format (combined, then `$bytes_sent`). */
const line = (bytes: number, agent = 'curl/8.0') =>
  `127.0.0.1 - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 ${bytes - 150} "-" "${agent}" ${bytes}\n`

let count = 0
/** A site's log and an offsets file of its own. */
function fixture() {
  const dir = mkdtempSync(join(root, 'site-'))
  const log = join(dir, 'access.log')
  const offsets = join(dir, `offsets-${count++}.json`)
  const read = async () => (await readAccessLogs(new Map([['site_1', log]]), offsets)).get('site_1')
  return { log, read }
}

describe('readAccessLogs', () => {
  test('counts each request and its bytes once, from where the last reading stopped', async () => {
    const { log, read } = fixture()
    writeFileSync(log, line(300) + line(500))
    expect(await read()).toEqual({ requests: 2, bytes: 800 })
    expect(await read()).toEqual({ requests: 0, bytes: 0 })
    appendFileSync(log, line(1000))
    expect(await read()).toEqual({ requests: 1, bytes: 1000 })
  })

  test('leaves a line nginx is still writing for the next reading', async () => {
    const { log, read } = fixture()
    const whole = line(400)
    writeFileSync(log, line(200) + whole.slice(0, 20))
    expect(await read()).toEqual({ requests: 1, bytes: 200 })
    appendFileSync(log, whole.slice(20))
    expect(await read()).toEqual({ requests: 1, bytes: 400 })
  })

  test('takes quotes escaped in the user agent for what they are', async () => {
    const { log, read } = fixture()
    writeFileSync(log, line(321, 'evil\\x22 999'))
    expect(await read()).toEqual({ requests: 1, bytes: 321 })
  })

  test('reads a truncated log from its start', async () => {
    const { log, read } = fixture()
    writeFileSync(log, line(300) + line(300) + line(300))
    await read()
    writeFileSync(log, line(700))
    expect(await read()).toEqual({ requests: 1, bytes: 700 })
  })

  test('after a rotation, reads the rest of the old log (access.log.1) and the new one from its start', async () => {
    const { log, read } = fixture()
    writeFileSync(log, line(100))
    await read()
    appendFileSync(log, line(200))
    renameSync(log, `${log}.1`)
    writeFileSync(log, line(400))
    expect(await read()).toEqual({ requests: 2, bytes: 600 })
    expect(await read()).toEqual({ requests: 0, bytes: 0 })
  })

  test('never reads through a link, and a site without a log has no reading', async () => {
    const { log, read } = fixture()
    expect(await read()).toBeUndefined()
    const elsewhere = join(root, 'elsewhere.log')
    writeFileSync(elsewhere, line(100))
    symlinkSync(elsewhere, log)
    expect(await read()).toBeUndefined()
  })
})
