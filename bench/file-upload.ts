// How fast a large file goes into a site through the API, and what it costs the panel: starts the standalone server
// as `npm start` runs it (the local node serving, a Unix user per site), makes a site, then PUTs a file of
// UPLOAD_MB (1024) MiB with curl (a client apart from the server) to `/files/content`, and reads it back whole
// through a download link, sampling the server's resident memory every 50 ms. Prints MB/s, the CPU the server spent,
// and its peak RSS beside its RSS before. `bun bench/file-upload.ts` (as root, with nginx and PHP-FPM).

import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, removeNodeLeftovers } from '../hosts/testing/index.ts'
import {
  activeWordPressSite,
  apiCaller,
  cpuSeconds as processCpu,
  rssMiB as processRss,
} from './bench-site.ts'
import { staffToken, startServer } from './standalone.ts'

const megabytes = Number(process.env.UPLOAD_MB ?? 1024)
const folder = mkdtempSync(join(tmpdir(), 'plinth-upload-bench-'))
chmodSync(folder, 0o711)
const env = {
  DATA_DIR: join(folder, 'data'),
  SITES_DATA_DIR: join(folder, 'sites'),
  LOCAL_SITES: 'serve',
  SITES_HTTP_PORT: String(freePort()),
  SITES_HTTPS_PORT: String(freePort()),
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
  const site = await activeWordPressSite(call, 'Upload Bench', 'upload.example.test')

  const file = join(folder, 'upload.bin')
  Bun.spawnSync(['dd', 'if=/dev/urandom', `of=${file}`, 'bs=1M', `count=${megabytes}`, 'status=none'])
  const target = `${server.url}/api/v1/sites/${site.id}/files/content?path=/tmp/upload.bin`

  /** curl with `args`, awaited without blocking the sampling. */
  const curl = async (args: string[], format: string) => {
    const child = Bun.spawn(['curl', '-sS', '-o', '/dev/null', '-w', format, ...args], { stdout: 'pipe' })
    const [out] = await Promise.all([new Response(child.stdout).text(), child.exited])
    return out
  }
  const sample = (into: number[]) => setInterval(() => into.push(rssMiB()), 50)
  const before = rssMiB()
  const uploadRss: number[] = []
  let timer = sample(uploadRss)
  let cpu = cpuSeconds()
  let started = performance.now()
  const put = await curl(['-T', file, '-H', `authorization: Bearer ${token}`, target], '%{http_code}')
  const uploadSeconds = (performance.now() - started) / 1000
  const uploadCpu = cpuSeconds() - cpu
  clearInterval(timer)
  if (put !== '201') throw new Error(`the upload answered ${put}`)

  const link = await call<{ url: string }>('POST', `/sites/${site.id}/files/download-links`, {
    path: '/tmp/upload.bin',
  })
  const downloadRss: number[] = []
  timer = sample(downloadRss)
  cpu = cpuSeconds()
  started = performance.now()
  const get = await curl([link.url], '%{http_code} %{size_download}')
  const downloadSeconds = (performance.now() - started) / 1000
  const downloadCpu = cpuSeconds() - cpu
  clearInterval(timer)
  if (get !== `200 ${megabytes * 1024 * 1024}`) throw new Error(`the download answered ${get}`)

  const rate = (seconds: number) => ((megabytes * 1024 * 1024) / seconds / 1e6).toFixed(0)
  console.log(
    `file of ${megabytes} MiB into a site through PUT /files/content (local node, as the site's user):`,
  )
  console.log(
    `  upload   ${uploadSeconds.toFixed(1)} s, ${rate(uploadSeconds)} MB/s, server CPU ${uploadCpu.toFixed(1)} s, RSS ${before.toFixed(0)} MiB before, peak ${Math.max(...uploadRss).toFixed(0)} MiB`,
  )
  console.log(
    `  download ${downloadSeconds.toFixed(1)} s, ${rate(downloadSeconds)} MB/s, server CPU ${downloadCpu.toFixed(1)} s, peak RSS ${Math.max(...downloadRss).toFixed(0)} MiB`,
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
