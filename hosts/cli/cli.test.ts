// The CLI (hosts/cli/main.ts) as an operator runs it: bootstrap, token minting and refusals, beside a live server.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  type CliResult,
  createProcessTracker,
  type Standalone,
  tokenPattern,
} from '../testing/host-process.ts'

const password = 'correct horse battery'
const dayMs = 86_400_000

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-cli-')

afterAll(cleanup)

/** The last line of stdout, where `token create` prints the token alone. */
function lastLine(stdout: string): string {
  return stdout.trimEnd().split('\n').at(-1) ?? ''
}

/** Runs `admin create --email <email> --password <password>` on `dataDir`. */
function adminCreate(dataDir: string, email: string, adminPassword: string): Promise<CliResult> {
  return runCli(dataDir, ['admin', 'create', '--email', email, '--password', adminPassword])
}

/** Runs `token create --email <email> ...options` on `dataDir`. */
function tokenCreate(dataDir: string, email: string, ...options: string[]): Promise<CliResult> {
  return runCli(dataDir, ['token', 'create', '--email', email, ...options])
}

/** `token create` that must succeed; returns the token. */
async function createToken(dataDir: string, email: string, ...options: string[]): Promise<string> {
  const result = await tokenCreate(dataDir, email, ...options)
  expect(result.stderr).toBe('')
  expect(result.exitCode).toBe(0)
  return lastLine(result.stdout)
}

describe('the CLI (hosts/cli/main.ts)', () => {
  let dataDir: string
  let firstAdmin: CliResult

  beforeAll(async () => {
    dataDir = tempDataDir()
    firstAdmin = await adminCreate(dataDir, 'a@example.com', password)
  })

  test('admin create makes a platform staff user on a fresh DATA_DIR and exits 0', () => {
    expect(firstAdmin.stderr).toBe('')
    expect(firstAdmin.exitCode).toBe(0)
    expect(firstAdmin.stdout).toContain('a@example.com')
  })

  test("token create --scopes '*' prints the token alone on the last line of stdout", async () => {
    const result = await tokenCreate(dataDir, 'a@example.com', '--scopes', '*')
    expect(result.exitCode).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines.at(-1)).toBe('')
    expect(lines.at(-2)).toMatch(tokenPattern)
    // The token is shown nowhere else.
    const token = lines.at(-2) ?? ''
    expect(result.stdout.indexOf(token)).toBe(result.stdout.lastIndexOf(token))
    expect(result.stderr).not.toContain(token)
  })

  test('token create takes a comma-separated list of scopes', async () => {
    const result = await tokenCreate(dataDir, 'a@example.com', '--scopes', 'site:read,site:create')
    expect(result.exitCode).toBe(0)
    expect(lastLine(result.stdout)).toMatch(tokenPattern)
    expect(result.stdout).toContain('site:read,site:create')
  })

  test('token create --expires-in 30d makes a token that expires in 30 days', async () => {
    const before = Date.now()
    const result = await tokenCreate(dataDir, 'a@example.com', '--scopes', '*', '--expires-in', '30d')
    expect(result.exitCode).toBe(0)
    expect(lastLine(result.stdout)).toMatch(tokenPattern)
    const expires = Date.parse(/expires (\S+)/.exec(result.stdout)?.[1] ?? '')
    expect(expires).toBeGreaterThanOrEqual(before + 30 * dayMs)
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * dayMs)
  })

  test('token create refuses --expires-in 400d as longer than tokens may live (lifetime_too_long)', async () => {
    const result = await tokenCreate(dataDir, 'a@example.com', '--scopes', '*', '--expires-in', '400d')
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).toContain('lifetime_too_long')
    expect(result.stdout).toBe('')
  })

  test('token create refuses a --customer that does not exist (unknown_customer)', async () => {
    const result = await tokenCreate(
      dataDir,
      'a@example.com',
      '--scopes',
      '*',
      '--customer',
      'cus_01M80QNV3XY9B4VRWMGJWNR9CR',
    )
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).toContain('unknown_customer')
    expect(result.stdout).toBe('')
  })

  test('token create refuses a scope the installation does not have (unknown_scope)', async () => {
    const result = await tokenCreate(dataDir, 'a@example.com', '--scopes', 'site:read,site:teleport')
    expect(result.exitCode).not.toBe(0)
    expect(result.stderr).toContain('unknown_scope')
    expect(result.stderr).toContain('site:teleport')
    expect(result.stdout).toBe('')
  })

  test('token create without --email is a usage error and exits 2', async () => {
    const result = await runCli(dataDir, ['token', 'create', '--scopes', '*'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--email is required')
    expect(result.stdout).toBe('')
  })

  test('token create for an e-mail nobody has exits 1', async () => {
    const result = await tokenCreate(dataDir, 'nobody@example.com', '--scopes', '*')
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('nobody@example.com')
    expect(result.stdout).toBe('')
  })

  test('an unknown command is a usage error and exits 2', async () => {
    const result = await runCli(dataDir, ['site', 'launch'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Unknown command "site launch"')
    expect(result.stderr).toContain('Usage:')
  })

  test('an unknown option is a usage error and exits 2', async () => {
    const result = await tokenCreate(dataDir, 'a@example.com', '--scope', '*')
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--scope')
  })

  test('help prints the usage and exits 0', async () => {
    const result = await runCli(dataDir, ['help'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('admin create')
    expect(result.stdout).toContain('token create')
  })

  test('admin create refuses an e-mail already in use, whatever its case, and exits 1', async () => {
    const result = await adminCreate(dataDir, 'A@Example.com', password)
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('already exists')
    expect(result.stdout).toBe('')
  })

  test('admin create refuses a password shorter than 12 characters, exits 1 and creates no one', async () => {
    const result = await adminCreate(dataDir, 'b@example.com', 'eleven char')
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('12')
    const token = await tokenCreate(dataDir, 'b@example.com', '--scopes', '*')
    expect(token.exitCode).toBe(1)
  })
})

describe('the CLI for brand staff and team members', () => {
  let dataDir: string

  beforeAll(async () => {
    dataDir = tempDataDir()
    expect((await adminCreate(dataDir, 'root@example.com', password)).exitCode).toBe(0)
  })

  test('admin create --brand with an unknown brand exits 1 naming unknown_brand', async () => {
    const result = await runCli(dataDir, [
      'admin',
      'create',
      '--email',
      'b@example.com',
      '--password',
      password,
      '--brand',
      'brd_nope',
    ])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('unknown_brand')
  })

  test('user create makes a plain user, whose token can hold nothing until a team takes them in', async () => {
    const created = await runCli(dataDir, [
      'user',
      'create',
      '--email',
      'member@example.com',
      '--password',
      password,
    ])
    expect(created.exitCode).toBe(0)
    expect(created.stdout).toContain('member@example.com')
    const refused = await tokenCreate(dataDir, 'member@example.com', '--scopes', 'site:read')
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('scope_not_held')
  })
})

describe('the CLI beside a running server on the same DATA_DIR', () => {
  let dataDir: string
  let server: Standalone
  let staffToken: string

  /** Calls the running server over real HTTP. */
  async function api(method: string, path: string, token: string, body?: unknown) {
    const response = await fetch(new URL(path, server.url), {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { response, json: (await response.json()) as Record<string, unknown> }
  }

  async function createCustomer(name: string): Promise<string> {
    const { response, json } = await api('POST', '/api/v1/customers', staffToken, { name })
    expect(response.status).toBe(201)
    return String(json.id)
  }

  /** A CLI-made token of the staff user limited to `customerId`, with `site:create,site:read`. */
  function siteTokenFor(customerId: string): Promise<string> {
    return createToken(
      dataDir,
      'ops@example.com',
      '--customer',
      customerId,
      '--scopes',
      'site:create,site:read',
    )
  }

  beforeAll(async () => {
    dataDir = tempDataDir()
    server = await startStandalone(dataDir)
    // Made while the server runs: the CLI and the server share the SQLite file.
    const admin = await adminCreate(dataDir, 'ops@example.com', password)
    expect(admin.exitCode).toBe(0)
    staffToken = await createToken(dataDir, 'ops@example.com', '--scopes', '*')
  })

  afterAll(async () => {
    server?.process.kill('SIGTERM')
    await server?.process.exited
  })

  test('a token made by the CLI works over HTTP at once: a customer, then a site, then reading it back', async () => {
    expect(staffToken).toMatch(tokenPattern)
    const customer = await api('POST', '/api/v1/customers', staffToken, { name: 'Acme' })
    expect(customer.response.status).toBe(201)
    const customerId = String(customer.json.id)
    expect(customerId).toStartWith('cus_')

    const created = await api('POST', '/api/v1/sites', staffToken, {
      customerId,
      name: 'My Blog',
      type: 'wordpress',
      domain: 'blog.example.com',
    })
    expect(created.response.status).toBe(201)
    expect(created.json).toMatchObject({
      status: 'provisioning',
      handle: 'my-blog',
      name: 'My Blog',
      type: 'wordpress',
      domain: 'blog.example.com',
      customerId,
    })
    const location = created.response.headers.get('location')
    expect(location).toBe(`/api/v1/sites/${created.json.id}`)

    const read = await api('GET', location ?? '', staffToken)
    expect(read.response.status).toBe(200)
    expect(read.json).toEqual(created.json)
  })

  test('a token limited to one customer cannot create a site for another: 422 unknown_customer, nothing made', async () => {
    const acmeId = await createCustomer('Acme Limited')
    const otherId = await createCustomer('Other Corp')
    const limited = await siteTokenFor(acmeId)
    const site = { name: 'Other Shop', type: 'wordpress', domain: 'shop.other.example' }

    const refused = await api('POST', '/api/v1/sites', limited, { customerId: otherId, ...site })
    expect(refused.response.status).toBe(422)
    expect(refused.response.headers.get('content-type')).toBe('application/problem+json')
    const errors = refused.json.errors as { code: string; location: string }[]
    expect(errors[0]?.code).toBe('unknown_customer')
    expect(errors[0]?.location).toBe('body.customerId')

    // Nothing was made: the domain is free and the handle is not taken.
    const made = await api('POST', '/api/v1/sites', staffToken, { customerId: otherId, ...site })
    expect(made.response.status).toBe(201)
    expect(made.json.handle).toBe('other-shop')

    // The same token may create sites for its own customer.
    const own = await api('POST', '/api/v1/sites', limited, {
      customerId: acmeId,
      name: 'Acme Shop',
      type: 'wordpress',
      domain: 'shop.acme.example',
    })
    expect(own.response.status).toBe(201)
  })

  test("a token limited to one customer reads its customer's sites and gets 404 for another's", async () => {
    const acmeId = await createCustomer('Acme Reader')
    const otherId = await createCustomer('Other Reader')
    const limited = await siteTokenFor(acmeId)
    const acmeSite = await api('POST', '/api/v1/sites', staffToken, {
      customerId: acmeId,
      name: 'Acme Docs',
      type: 'wordpress',
      domain: 'docs.acme.example',
    })
    const otherSite = await api('POST', '/api/v1/sites', staffToken, {
      customerId: otherId,
      name: 'Other Docs',
      type: 'wordpress',
      domain: 'docs.other.example',
    })
    expect(acmeSite.response.status).toBe(201)
    expect(otherSite.response.status).toBe(201)

    const own = await api('GET', `/api/v1/sites/${acmeSite.json.id}`, limited)
    expect(own.response.status).toBe(200)
    const foreign = await api('GET', `/api/v1/sites/${otherSite.json.id}`, limited)
    expect(foreign.response.status).toBe(404)
    expect(foreign.response.headers.get('content-type')).toBe('application/problem+json')
    expect(foreign.json.code).toBe('not_found')
  })

  test('a token with only site scopes cannot create customers (403 insufficient_scope)', async () => {
    const siteOnly = await createToken(dataDir, 'ops@example.com', '--scopes', 'site:read,site:create')
    const refused = await api('POST', '/api/v1/customers', siteOnly, { name: 'Sneaky' })
    expect(refused.response.status).toBe(403)
    expect(refused.json.code).toBe('insufficient_scope')
  })
})
