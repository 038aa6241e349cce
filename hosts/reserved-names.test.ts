// Names no site may take, on the standard installation: the panel's own host name (PUBLIC_URL's) and brands'
// sign-in host names, and any name under one, on create and on a change of domain (a customer took a brand's
// sign-in host).

import { afterAll, beforeAll, expect, test } from 'bun:test'
import { settingsFromEnv } from './settings.ts'
import { standardPlugins } from './standard-plugins.ts'
import { createTestPanel, expectFieldProblem, type TestPanel } from './testing/index.ts'
import { temporaryDataDir } from './testing/temporary-data-dir.ts'

let tp: TestPanel
let token: string
let customerId: string

async function created(path: string, body: unknown): Promise<string> {
  const response = await tp.request('POST', `/api/v1${path}`, { token, body })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const newSite = (domain: string) =>
  tp.request('POST', '/api/v1/sites', {
    token,
    body: { customerId, name: domain, type: 'wordpress', domain },
  })

beforeAll(async () => {
  // As `npm start` reads it: the panel is reached at PUBLIC_URL.
  const settings = settingsFromEnv({
    PUBLIC_URL: 'https://Panel.Example.com/',
    DATA_DIR: temporaryDataDir(),
    // Its local node lays out files (it serves nothing here): ready at once, sites placed on it.
    LOCAL_SITES: 'files',
  })
  tp = await createTestPanel({ standard: false, plugins: standardPlugins(settings) })
  token = await tp.token()
  const brandId = await created('/brands', { name: 'Reseller' })
  const named = await tp.request('PATCH', `/api/v1/brands/${brandId}`, {
    token,
    body: { hostnames: ['signin.reseller.example'] },
  })
  expect(named.status).toBe(200)
  customerId = await created('/customers', { name: 'Acme', brandId })
})
afterAll(() => tp.panel.close())

test('a brand’s sign-in host name, or a name under it, is refused as a site’s domain', async () => {
  for (const domain of [
    'signin.reseller.example',
    'SignIn.Reseller.Example.',
    'shop.signin.reseller.example',
  ])
    await expectFieldProblem(await newSite(domain), 422, 'domain_reserved', 'body.domain')
  // The name above it is no sign-in host: a site may have it.
  expect((await newSite('reseller.example')).status).toBe(201)
})

test('the panel’s own host name, or a name under it, is refused as a site’s domain', async () => {
  for (const domain of ['panel.example.com', 'a.panel.example.com'])
    await expectFieldProblem(await newSite(domain), 422, 'domain_reserved', 'body.domain')
  expect((await newSite('example.com')).status).toBe(201)
})

test('a change of domain to a reserved name is refused and changes nothing', async () => {
  const id = await created('/sites', {
    customerId,
    name: 'Shop',
    type: 'wordpress',
    domain: 'shop.acme.example',
  })
  for (const domain of ['signin.reseller.example', 'panel.example.com']) {
    const changed = await tp.request('PATCH', `/api/v1/sites/${id}`, { token, body: { domain } })
    await expectFieldProblem(changed, 422, 'domain_reserved', 'body.domain')
  }
  const read = await tp.request('GET', `/api/v1/sites/${id}`, { token })
  expect(((await read.json()) as { domain: string }).domain).toBe('shop.acme.example')
})
