// What the benches of a site's files share: a JSON client of the panel, a WordPress site made and waited for (on
// the machine's MariaDB), and a process's resident memory and CPU read from /proc.

import { readFileSync } from 'node:fs'

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
