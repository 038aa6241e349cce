// What a test that served sites leaves on the machine, removed: the node's nginx and PHP-FPM masters (they outlive
// the panel and the agent, as a node's do), the sites' Unix users whose homes are under its data directory, and the
// nftables table that held those users back.

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { networkTableOf } from '../../plugins/nodes/node/testing/serving.ts'

/** nginx and PHP-FPM processes holding a file under `dir`: workers a killed master left (their pid is in no file). */
function orphansUnder(dir: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (!/\/(nginx|php-fpm[\d.]*)( \(deleted\))?$/.test(readlinkSync(`/proc/${name}/exe`))) continue
      const fds = readdirSync(`/proc/${name}/fd`)
      if (fds.some((fd) => readlinkSync(`/proc/${name}/fd/${fd}`).startsWith(`${dir}/`)))
        found.push(Number(name))
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return found
}

/**
 * Stops the masters whose pid files are under `dataDir`, kills the workers killed masters left behind, and removes
 * the Unix users whose homes are under it.
 */
export function removeNodeLeftovers(dataDir: string): void {
  if (existsSync(dataDir))
    for (const path of readdirSync(dataDir, { recursive: true }) as string[]) {
      if (!path.endsWith('.pid')) continue
      try {
        // A master ending meanwhile (signalled by an earlier call for the same folder) removes its pid file.
        const pid = Number(readFileSync(join(dataDir, path), 'utf8').trim())
        if (pid > 0) process.kill(pid, 'SIGTERM')
      } catch {
        // Gone already.
      }
    }
  for (const pid of orphansUnder(dataDir)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone already.
    }
  }
  // The table that held its sites' processes back from the node's own addresses (none where nft is missing).
  Bun.spawnSync(['nft', 'delete', 'table', 'inet', networkTableOf(dataDir)], { stderr: 'ignore' })
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name = '', , , , , home = ''] = line.split(':')
    if (!home.startsWith(`${dataDir}/`)) continue
    Bun.spawnSync(['pkill', '-KILL', '-u', name])
    Bun.spawnSync(['userdel', name])
    Bun.spawnSync(['groupdel', name])
  }
}
