// The brand's billing swapped in for the standard one, from outside: only public contracts imported, the OpenAPI
// document and capabilities show the swap, the deployment opens, and an override that drops part of the contract is
// refused.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { createTestPanel, type TestPanel } from '../../hosts/testing/index.ts'
import { billingPlugin } from '../../plugins/billing/index.ts'
import { openBrandPanel } from './deployment.ts'
import { externalBillingPlugin } from './index.ts'

const root = resolve(import.meta.dir, '..', '..')
const secret = 'shared-with-the-billing-system-0123456789'
const checkoutUrl = 'https://shop.brand.example/plans'
const billing = { secret, checkoutUrl }
const panelSecret = 'brand-panel-secret-brand-panel-secret!'
const dataDir = () => mkdtempSync(join(tmpdir(), 'plinth-brand-swap-'))

let tp: TestPanel
let staffToken: string

beforeAll(async () => {
  // The standard plugins with the brand's billing as an override: the kernel checks it honours the contract.
  tp = await createTestPanel({ overrides: [externalBillingPlugin(billing)] })
  staffToken = await tp.token()
})
afterAll(() => tp.panel.close())

describe('swapping billing from outside', () => {
  test('the example imports only the kernel’s contract, the plugins’ public files and the standard installation’s API, and core/, plugins/ and hosts/ never import it', () => {
    const importPattern = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g
    const here = relative(root, import.meta.dir)
    const offending: string[] = []
    for (const file of new Bun.Glob(`${here}/*.ts`).scanSync({ cwd: root })) {
      if (file.endsWith('.test.ts')) continue
      for (const match of readFileSync(join(root, file), 'utf8').matchAll(importPattern)) {
        const specifier = match[1] ?? ''
        if (!specifier.startsWith('.')) continue
        const target = relative(root, resolve(root, dirname(file), specifier))
        const allowed =
          target === 'core/index.ts' ||
          /^plugins\/[^/]+\/contract\.ts$/.test(target) ||
          (file.endsWith('deployment.ts') && target === 'hosts/index.ts') ||
          target.startsWith(`${here}/`)
        if (!allowed) offending.push(`${file} → ${target}`)
      }
    }
    expect(offending).toEqual([])
    const fromOutside = [...new Bun.Glob('{core,plugins,hosts}/**/*.ts').scanSync({ cwd: root })].filter(
      (file) =>
        [...readFileSync(join(root, file), 'utf8').matchAll(importPattern)].some((match) =>
          (match[1] ?? '').includes('examples/'),
        ),
    )
    expect(fromOutside).toEqual([])
  })

  test('the OpenAPI document and capabilities describe the brand’s billing, not the standard one', async () => {
    const document = (await (await tp.request('GET', '/api/docs')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>
      tags: { name: string; description: string }[]
      'x-scopes': { name: string }[]
    }
    expect(document.paths['/api/v1/billing/callbacks']?.post).toBeDefined()
    expect(document.paths['/api/v1/subscriptions']?.post).toBeUndefined()
    expect(document.paths['/api/v1/subscriptions/{id}/suspend']).toBeUndefined()
    expect(document.paths['/api/v1/checkout']?.post?.responses['403']?.description).toContain(
      'checkout_external',
    )
    expect(document.tags.find((tag) => tag.name === 'billing')?.description).toContain('signed callbacks')
    const scopes = document['x-scopes'].map((scope) => scope.name)
    expect(scopes).toEqual(
      expect.arrayContaining(['plan:read', 'plan:manage', 'billing:read', 'billing:manage']),
    )
    const capabilities = (await (
      await tp.request('GET', '/api/v1/capabilities', { token: staffToken })
    ).json()) as {
      installation: { plugins: { name: string; version: string; capabilities: Record<string, unknown> }[] }
    }
    expect(capabilities.installation.plugins.find((plugin) => plugin.name === 'billing')).toEqual({
      name: 'billing',
      version: '1.0.0',
      capabilities: { checkout: 'external', checkoutUrl },
    })
  })

  test('the deployment opens as a panel of its own', async () => {
    const panel = await openBrandPanel({ dataDir: dataDir(), secret: panelSecret, billing })
    expect(panel.plugins.find((plugin) => plugin.name === 'billing')?.version).toBe('1.0.0')
    await panel.close()
  })

  test('an override that drops a scope of the standard billing is refused at start-up', async () => {
    const narrower = { ...billingPlugin(), version: '9.9.9', scopes: [] }
    await expect(createTestPanel({ overrides: [narrower] })).rejects.toThrow(
      /does not honour the contract.*plan:read/,
    )
  })

  test('a deployment whose billing names a brand the installation does not have fails to start', async () => {
    await expect(
      openBrandPanel({
        dataDir: dataDir(),
        secret: panelSecret,
        billing: { ...billing, brandId: 'brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W' },
      }),
    ).rejects.toThrow(/brandId brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W names no brand/)
  })
})
