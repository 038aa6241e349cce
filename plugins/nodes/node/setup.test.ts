// `node setup` with Debian's dpkg-query and apt-get played by scripts (the real ones would change this machine; CI
// runs the real command in .ci/ensure-site-stack): what it installs is what the install's node modules need and
// the machine lacks, with services held back while it does, and a refusal that names the packages otherwise.

import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { codeRoot } from './agent/agent-node.ts'
import { installedModules, packagesOf, SetupError, setupNode } from './setup.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A machine with `installed` packages, whose apt-get fails its first install when `stale` (until an update). */
function machine(installed: readonly string[], options: { stale?: boolean; aptGet?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'plinth-setup-'))
  dirs.push(dir)
  const state = join(dir, 'installed')
  const log = join(dir, 'apt.log')
  const policy = join(dir, 'policy-rc.d')
  writeFileSync(state, installed.map((name) => `${name}\n`).join(''))
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`)
    chmodSync(join(dir, name), 0o755)
  }
  script(
    'dpkg-query',
    `shift 2; for p in "$@"; do if /bin/grep -qx "$p" "${state}"; then echo "$p ii "; else echo "$p un "; fi; done`,
  )
  if (options.aptGet !== false)
    script(
      'apt-get',
      `echo "$*" >> "${log}"
[ -e "${policy}" ] && echo "policy held" >> "${log}"
case "$1" in
  update) /usr/bin/touch "${dir}/updated" ;;
  install) ${options.stale ? `[ -e "${dir}/updated" ] || exit 100;` : ''} shift 2; for p in "$@"; do echo "$p" >> "${state}"; done; /usr/bin/touch "${dir}/enabled-nginx" ;;
esac`,
    )
  // Debian enables the services it installs: ssh was enabled before, nginx is once apt-get ran.
  script(
    'systemctl',
    `case "$1" in
  list-unit-files) echo "ssh.service enabled enabled"; [ -e "${dir}/enabled-nginx" ] && echo "nginx.service enabled enabled" ;;
  *) echo "systemctl $*" >> "${log}" ;;
esac
exit 0`,
  )
  const run = (asRoot = true) =>
    setupNode({ installRoot: codeRoot, env: { PATH: dir }, policyPath: policy, asRoot })
  return { run, log: () => (existsSync(log) ? readFileSync(log, 'utf8') : ''), policy }
}

describe('node setup', () => {
  test('needs serving’s packages and what each node module of the install declares', async () => {
    const packages = packagesOf(await installedModules(codeRoot))
    expect(packages).toEqual(
      expect.arrayContaining([
        'nginx',
        'php-fpm',
        'php-cli',
        'wordpress',
        'php-mysql',
        'mariadb-server',
        'bubblewrap',
        'e2fsprogs',
        'mount',
      ]),
    )
  })

  test('installs only what is missing, with system services held back, and says what it did', async () => {
    const all = packagesOf(await installedModules(codeRoot))
    const node = machine(all.filter((name) => name !== 'nginx' && name !== 'mariadb-server'))
    const lines = await node.run()
    expect(lines).toContain(
      'Installing from Debian: mariadb-server nginx (system services are not started: the node runs its own)',
    )
    expect(lines).toContain('Installed: mariadb-server nginx')
    // The services the install enabled are disabled again (a reboot would start them); ssh, enabled before, is not.
    expect(lines).toContain('Disabled the system services it brought (the node runs its own): nginx.service')
    expect(node.log()).toBe('install -y mariadb-server nginx\npolicy held\nsystemctl disable nginx.service\n')
    // The policy it wrote is gone once it is done.
    expect(existsSync(node.policy)).toBe(false)
  })

  test('with everything there, changes nothing', async () => {
    const node = machine(packagesOf(await installedModules(codeRoot)))
    expect(await node.run()).toContain('Everything is installed already: nothing to do.')
    expect(node.log()).toBe('')
  })

  test('updates the package lists of a fresh machine when an install fails, then installs', async () => {
    const node = machine([], { stale: true })
    const lines = await node.run()
    expect(lines.at(-1)).toBe('Everything a serving node needs is installed.')
    expect(
      node
        .log()
        .split('\n')
        .filter((line) => !line.startsWith('policy'))[1],
    ).toBe('update')
  })

  test('refuses, naming what is missing, without root or without apt-get', async () => {
    await expect(machine(['nginx']).run(false)).rejects.toThrow(/needs root: run it again as root/)
    await expect(machine(['nginx'], { aptGet: false }).run()).rejects.toBeInstanceOf(SetupError)
    await expect(machine(['nginx'], { aptGet: false }).run()).rejects.toThrow(/no apt-get: install .*php-fpm/)
  })
})
