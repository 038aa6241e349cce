// `npm run bench:lifecycle`: how long a new site takes to become `active` with the local driver, on the standalone
// server over HTTP: from `POST /api/v1/sites` answering 201 to a read showing `active`, for sites created one after
// another and all at once. No pass/fail: the figures go into docs/performance.md. `LIFECYCLE_SITES` (200) per run;
// `JOB_WORKERS` is passed to the server (its default is 4).

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { staffToken, startServer, summary } from './standalone.ts'

const count = Number(process.env.LIFECYCLE_SITES ?? '200')

interface SiteBody {
  id: string
  status: string
  jobId: string
}

interface JobBody {
  status: string
  attempts: number
  createdAt: string
  startedAt: string
  finishedAt: string
}

/** One site's times: client-observed (ms since the 201) and the job's own (from its timestamps). */
interface Timing {
  readonly toActiveMs: number
  readonly queuedMs: number
  readonly runMs: number
}

const dataDir = mkdtempSync(join(tmpdir(), 'plinth-lifecycle-'))
const env = { DATA_DIR: dataDir, PORT: '0', RATE_LIMIT_PER_MINUTE: '1000000000' }
const server = await startServer(env)
try {
  const token = await staffToken(env)
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as T
  }
  const newCustomer = async (name: string) => (await call<{ id: string }>('POST', '/customers', { name })).id
  let serial = 0
  /** Creates a site; resolves with it and the moment its 201 arrived. */
  const createSite = async (customerId: string) => {
    const site = await call<SiteBody>('POST', '/sites', {
      customerId,
      name: `Bench ${++serial}`,
      type: 'wordpress',
      domain: `bench-${serial}-${crypto.randomUUID().slice(0, 8)}.example.com`,
    })
    return { site, createdAt: performance.now() }
  }
  /** The job's queue wait and run time, from its own timestamps. */
  const jobTimes = async (site: SiteBody) => {
    const job = await call<JobBody>('GET', `/jobs/${site.jobId}`)
    if (job.status !== 'succeeded') throw new Error(`job ${site.jobId} is ${job.status}`)
    const at = (iso: string) => Date.parse(iso)
    return { queuedMs: at(job.startedAt) - at(job.createdAt), runMs: at(job.finishedAt) - at(job.startedAt) }
  }

  // One after another: create, then read the site until it is active, then the next.
  const customerA = await newCustomer('Sequential')
  const sequential: Timing[] = []
  for (let i = 0; i < count; i++) {
    const { site, createdAt } = await createSite(customerA)
    for (;;) {
      const current = await call<SiteBody>('GET', `/sites/${site.id}`)
      if (current.status === 'active') break
      if (current.status !== 'provisioning') throw new Error(`site ${site.id} became ${current.status}`)
      await Bun.sleep(1)
    }
    sequential.push({ toActiveMs: performance.now() - createdAt, ...(await jobTimes(site)) })
  }

  // All at once: every POST is sent together; one reader lists the customer's sites still provisioning.
  const customerB = await newCustomer('Concurrent')
  const createdAt = new Map<string, number>()
  const activeAt = new Map<string, number>()
  const sites: SiteBody[] = []
  const creating = Promise.all(
    Array.from({ length: count }, async () => {
      const created = await createSite(customerB)
      createdAt.set(created.site.id, created.createdAt)
      sites.push(created.site)
    }),
  )
  let allCreated = false
  void creating.then(() => {
    allCreated = true
  })
  while (!allCreated || activeAt.size < count) {
    const seenAt = performance.now()
    const provisioning = new Set<string>()
    let cursor: string | null = null
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const page: { items: SiteBody[]; nextCursor: string | null } = await call(
        'GET',
        `/sites?customerId=${customerB}&status=provisioning&limit=100${query}`,
      )
      for (const site of page.items) provisioning.add(site.id)
      cursor = page.nextCursor
    } while (cursor)
    for (const [id, at] of createdAt)
      if (!provisioning.has(id) && !activeAt.has(id)) activeAt.set(id, Math.max(seenAt, at))
    await Bun.sleep(2)
  }
  await creating
  const concurrent: Timing[] = []
  for (const site of sites) {
    const current = await call<SiteBody>('GET', `/sites/${site.id}`)
    if (current.status !== 'active') throw new Error(`site ${site.id} is ${current.status}`)
    concurrent.push({
      toActiveMs: (activeAt.get(site.id) ?? Number.NaN) - (createdAt.get(site.id) ?? Number.NaN),
      ...(await jobTimes(site)),
    })
  }

  const workers = process.env.JOB_WORKERS ?? '4 (default)'
  console.log(`local driver, standalone server over HTTP, ${count} sites per run, JOB_WORKERS ${workers}\n`)
  for (const [name, timings] of [
    ['one after another', sequential],
    [`${count} at once`, concurrent],
  ] as const) {
    console.log(`${name}:`)
    console.log(
      summary(
        '  201 to reading active (client)',
        timings.map((t) => t.toActiveMs),
      ),
    )
    console.log(
      summary(
        '  job queued before it ran',
        timings.map((t) => t.queuedMs),
      ),
    )
    console.log(
      summary(
        '  job run (claim to finish)',
        timings.map((t) => t.runMs),
      ),
    )
  }
} finally {
  server.process.kill('SIGTERM')
  await server.process.exited
  rmSync(dataDir, { recursive: true, force: true })
}
