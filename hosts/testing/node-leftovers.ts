// What a test that served sites leaves on the machine, removed: the node's nginx and PHP-FPM masters (they outlive
// the panel and the agent, as a node's do), the sites' Unix users whose homes are under its data directory, the
// filesystems of sites with a disk quota mounted there (with their loop devices), and the sites' cgroups.

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { removeSiteGroups } from '../../plugins/nodes/node/testing/serving.ts'

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

/** The mount points under `dir`, deepest first, from /proc/self/mountinfo. */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => (line.split(' ')[4] ?? '').replace(/\\040/g, ' '))
    .filter((point) => point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length)
}

/**
 * Stops the masters whose pid files are under `dataDir`, kills the workers killed masters left behind, removes
 * the Unix users whose homes are under it and the groups its sites had, and unmounts the sites' filesystems there
 * (their loop devices go with them), leaving their bare mount points removable.
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
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name = '', , , , , home = ''] = line.split(':')
    if (!home.startsWith(`${dataDir}/`)) continue
    Bun.spawnSync(['pkill', '-KILL', '-u', name])
    Bun.spawnSync(['userdel', name])
    Bun.spawnSync(['groupdel', name])
  }
  removeSiteGroups(dataDir)
  for (const point of mountsUnder(dataDir)) {
    Bun.spawnSync(['umount', '-l', point])
    Bun.spawnSync(['chattr', '-i', point])
  }
}
