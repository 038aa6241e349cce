// `npm run bench`: measures what users feel (start-up, request latency) and prints the figures; no pass/fail.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestPanel } from '../core/testing/create-test-panel.ts'
import { standardPlugins } from '../hosts/standard-panel.ts'

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

function report(name: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b)
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length
  console.log(
    `${name.padEnd(44)} n=${String(samples.length).padStart(5)}  mean ${mean.toFixed(2)} ms  p50 ${percentile(sorted, 50).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms`,
  )
}

/** Process start to the first 200 from /readyz, over real HTTP, on a fresh DATA_DIR each time. */
async function serverStart(runs: number): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'plinth-bench-'))
    const started = performance.now()
    const child = Bun.spawn([process.execPath, 'hosts/bun/main.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir },
      stdout: 'pipe',
    })
    const reader = child.stdout.getReader()
    let output = ''
    let url: string | undefined
    while (!url) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`server exited: ${output}`)
      output += new TextDecoder().decode(value)
      url = /listening on (\S+)/.exec(output)?.[1]
    }
    while ((await fetch(`${url}/readyz`).catch(() => null))?.status !== 200) await Bun.sleep(1)
    samples.push(performance.now() - started)
    child.kill('SIGTERM')
    await child.exited
    rmSync(dataDir, { recursive: true, force: true })
  }
  return samples
}

async function inProcess(): Promise<void> {
  const tp = await createTestPanel({ plugins: standardPlugins() })
  const token = await tp.token()
  const customer = (await (
    await tp.request('POST', '/api/v1/customers', { token, body: { name: 'Bench' } })
  ).json()) as {
    id: string
  }
  const create: number[] = []
  const ids: string[] = []
  for (let i = 0; i < 2000; i++) {
    const started = performance.now()
    const response = await tp.request('POST', '/api/v1/sites', {
      token,
      body: {
        customerId: customer.id,
        name: `Site ${i}`,
        type: 'wordpress',
        domain: `site-${i}.example.com`,
      },
    })
    create.push(performance.now() - started)
    ids.push(((await response.json()) as { id: string }).id)
  }
  report('POST /api/v1/sites (in-process, :memory:)', create)
  const read: number[] = []
  for (const id of ids) {
    const started = performance.now()
    await (await tp.request('GET', `/api/v1/sites/${id}`, { token })).arrayBuffer()
    read.push(performance.now() - started)
  }
  report('GET /api/v1/sites/{id} (in-process)', read)
  const refused: number[] = []
  for (let i = 0; i < 2000; i++) {
    const started = performance.now()
    await (
      await tp.request('POST', '/api/v1/sites', {
        token,
        body: { customerId: 'x', name: '', type: 'x', domain: 'x' },
      })
    ).arrayBuffer()
    refused.push(performance.now() - started)
  }
  report('POST /api/v1/sites refused with 422', refused)
  await tp.panel.close()
}

report('server start to /readyz 200 (fresh DATA_DIR)', await serverStart(10))
await inProcess()
