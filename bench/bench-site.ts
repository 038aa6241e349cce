// What the benches of a site's files share: a JSON client of the panel, a WordPress site made and waited for (on
// the machine's MariaDB), an SFTP account with a new key and OpenSSH's sftp to use it, and a process's resident
// memory and CPU read from /proc.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** A JSON client of the panel at `url` with `token`; a refusal throws with its answer. */
export function apiCaller(url: string | URL, token: string) {
  const base = String(url).replace(/\/$/, '')
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return (response.status === 204 ? null : await response.json()) as T
  }
}

/** A new customer's WordPress site for `domain`, once it is active (the database server registered first). */
export async function activeWordPressSite(
  call: ReturnType<typeof apiCaller>,
  name: string,
  domain: string,
): Promise<{ id: string }> {
  const customer = await call<{ id: string }>('POST', '/customers', { name })
  // The standard installation's sites are WordPress: on the machine's MariaDB.
  await call('POST', '/database-servers', {
    name: 'mariadb',
    engine: 'mariadb',
    host: '127.0.0.1',
    port: 3306,
    username: 'root',
    password: '',
  })
  const site = await call<{ id: string }>('POST', '/sites', {
    customerId: customer.id,
    name,
    type: 'wordpress',
    domain,
  })
  for (;;) {
    const now = await call<{ status: string }>('GET', `/sites/${site.id}`)
    if (now.status === 'active') return site
    if (now.status === 'failed') throw new Error(`the site failed to provision: ${JSON.stringify(now)}`)
    await Bun.sleep(200)
  }
}

/** Resident memory of process `pid`, MiB. */
export const rssMiB = (pid: number) =>
  Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/** CPU seconds process `pid` has spent (user + system). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** An SFTP account of the site for a new Ed25519 key made in `folder` (the key's path beside the account). */
export async function sftpAccountWithKey(
  call: ReturnType<typeof apiCaller>,
  siteId: string,
  folder: string,
): Promise<{ key: string; account: { username: string; host: string; port: number } }> {
  const key = join(folder, 'id_ed25519')
  const keygen = Bun.spawn(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', key])
  if ((await keygen.exited) !== 0) throw new Error('ssh-keygen failed')
  const account = await call<{ username: string; host: string; port: number }>(
    'POST',
    `/sites/${siteId}/sftp-users`,
    {
      name: 'bench',
      publicKeys: [readFileSync(`${key}.pub`, 'utf8')],
    },
  )
  return { key, account }
}

/** Runs one command of OpenSSH's sftp as `username` on 127.0.0.1:`port`, awaited without blocking a sampler. */
export function sftpBatch(options: { port: number; key: string; username: string }) {
  return async (command: string): Promise<void> => {
    const child = Bun.spawn(
      [
        'sftp',
        '-q',
        '-P',
        String(options.port),
        '-i',
        options.key,
        '-o',
        'IdentitiesOnly=yes',
        '-o',
        'StrictHostKeyChecking=no',
        '-o',
        'UserKnownHostsFile=/dev/null',
        '-b',
        '-',
        `${options.username}@127.0.0.1`,
      ],
      { stdin: new Blob([`${command}\n`]), stdout: 'pipe', stderr: 'pipe' },
    )
    const [, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    if (code !== 0) throw new Error(`sftp ${command}: exit ${code}: ${stderr}`)
  }
}
