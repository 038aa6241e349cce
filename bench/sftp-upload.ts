// How fast a large file goes into a site over SFTP, and what it costs the panel: starts the standalone server as
// `npm start` runs it (the local node serving, a Unix user per site, its SSH server on SFTP_PORT), makes a site and
// an SFTP account with a key, then puts a file of UPLOAD_MB (1024) MiB with OpenSSH's `sftp` and gets it back,
// sampling the server's resident memory every 50 ms. Prints MB/s, the CPU the server spent (the SSH transport's
// ciphers run in it; the sandboxed sftp-server writes the file) and its peak RSS beside its RSS before.
// `bun bench/sftp-upload.ts` (as root, with nginx, PHP-FPM, MariaDB, bubblewrap and openssh-sftp-server).

import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, removeNodeLeftovers } from '../hosts/testing/index.ts'
import {
  activeWordPressSite,
  apiCaller,
  cpuSeconds as processCpu,
  rssMiB as processRss,
  sftpAccountWithKey,
  sftpBatch,
} from './bench-site.ts'
import { staffToken, startServer } from './standalone.ts'

const megabytes = Number(process.env.UPLOAD_MB ?? 1024)
const folder = mkdtempSync(join(tmpdir(), 'plinth-sftp-bench-'))
chmodSync(folder, 0o711)
const sftpPort = freePort()
const env = {
  DATA_DIR: join(folder, 'data'),
  SITES_DATA_DIR: join(folder, 'sites'),
  LOCAL_SITES: 'serve',
  SITES_HTTP_PORT: String(freePort()),
  SITES_HTTPS_PORT: String(freePort()),
  SFTP_PORT: String(sftpPort),
  SFTP_LISTEN: '127.0.0.1',
  PLINTH_SECRET: 'b'.repeat(64),
}
const server = await startServer({ ...env, PORT: '0' })
const pid = server.process.pid

/** Resident memory and CPU seconds of the server. */
const rssMiB = () => processRss(pid)
const cpuSeconds = () => processCpu(pid)

try {
  const token = await staffToken(env)
  const call = apiCaller(server.url, token)
  const site = await activeWordPressSite(call, 'SFTP Bench', 'sftp.example.test')
  const { key, account } = await sftpAccountWithKey(call, site.id, folder)

  const file = join(folder, 'upload.bin')
  Bun.spawnSync(['dd', 'if=/dev/urandom', `of=${file}`, 'bs=1M', `count=${megabytes}`, 'status=none'])

  const sftp = sftpBatch({ port: sftpPort, key, username: account.username })
  const sample = (into: number[]) => setInterval(() => into.push(rssMiB()), 50)
  const before = rssMiB()
  const uploadRss: number[] = []
  let timer = sample(uploadRss)
  let cpu = cpuSeconds()
  let started = performance.now()
  await sftp(`put ${file} /tmp/upload.bin`)
  const uploadSeconds = (performance.now() - started) / 1000
  const uploadCpu = cpuSeconds() - cpu
  clearInterval(timer)
  const stored = statSync(join(folder, 'sites', 'sites', site.id, 'tmp', 'upload.bin'))
  if (stored.size !== megabytes * 1024 * 1024) throw new Error(`${stored.size} bytes arrived`)

  const downloadRss: number[] = []
  timer = sample(downloadRss)
  cpu = cpuSeconds()
  started = performance.now()
  await sftp(`get /tmp/upload.bin ${join(folder, 'download.bin')}`)
  const downloadSeconds = (performance.now() - started) / 1000
  const downloadCpu = cpuSeconds() - cpu
  clearInterval(timer)

  const rate = (seconds: number) => ((megabytes * 1024 * 1024) / seconds / 1e6).toFixed(0)
  console.log(
    `file of ${megabytes} MiB into a site over SFTP (local node's SSH server, sftp-server in bubblewrap):`,
  )
  console.log(
    `  put ${uploadSeconds.toFixed(1)} s, ${rate(uploadSeconds)} MB/s, server CPU ${uploadCpu.toFixed(1)} s, RSS ${before.toFixed(0)} MiB before, peak ${Math.max(...uploadRss).toFixed(0)} MiB`,
  )
  console.log(
    `  get ${downloadSeconds.toFixed(1)} s, ${rate(downloadSeconds)} MB/s, server CPU ${downloadCpu.toFixed(1)} s, peak RSS ${Math.max(...downloadRss).toFixed(0)} MiB`,
  )
  await call('DELETE', `/sites/${site.id}`)
  await Bun.sleep(2000)
} finally {
  server.process.kill('SIGTERM')
  await server.process.exited
  // The node's nginx and each site's PHP-FPM master outlive the panel: ended here, with what they left.
  removeNodeLeftovers(join(folder, 'sites'))
  rmSync(folder, { recursive: true, force: true })
}
