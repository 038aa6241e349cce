// The CLI (hosts/cli/main.ts) as an operator runs it, as a real process: bootstrap, passwords, help, users and
// tokens, backup and restore, config check and start-up errors, beside a live server where that matters.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  bunBin,
  type CliResult,
  createProcessTracker,
  hostEnv,
  repoRoot,
  type Standalone,
  tokenPattern,
} from '../testing/host-process.ts'

const password = 'correct horse battery'
const dayMs = 86_400_000

const { tempDataDir, runCli, startStandalone, cleanup } = createProcessTracker('plinth-cli-')

afterAll(cleanup)

/** Runs the CLI with `input` on its standard input (a pipe, not a terminal). */
async function runCliWithInput(
  dataDir: string,
  args: readonly string[],
  input: string,
  extra: Record<string, string> = {},
): Promise<CliResult> {
  const proc = Bun.spawn([bunBin, 'hosts/cli/main.ts', ...args], {
    cwd: repoRoot,
    env: hostEnv(dataDir, extra),
    stdin: new TextEncoder().encode(input),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  return { exitCode, stdout, stderr }
}

/** The last line of stdout, where `token create` prints the token alone. */
function lastLine(stdout: string): string {
  return stdout.trimEnd().split('\n').at(-1) ?? ''
}

/** Runs `init` on `dataDir`, which must succeed. */
async function init(dataDir: string): Promise<void> {
  const result = await runCli(dataDir, ['init'])
  expect(result.stderr).toBe('')
  expect(result.exitCode).toBe(0)
}

/** Runs `admin create --email <email> --password-stdin` with `adminPassword` piped in. */
function adminCreate(dataDir: string, email: string, adminPassword = password): Promise<CliResult> {
  return runCliWithInput(
    dataDir,
    ['admin', 'create', '--email', email, '--password-stdin'],
    `${adminPassword}\n`,
  )
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

/** Whether stderr reads like a crash rather than a message: a stack trace. */
function hasStackTrace(stderr: string): boolean {
  return /^\s+at /m.test(stderr)
}

describe('the CLI (hosts/cli/main.ts)', () => {
  let dataDir: string
  let firstAdmin: CliResult

  beforeAll(async () => {
    dataDir = tempDataDir()
    await init(dataDir)
    firstAdmin = await adminCreate(dataDir, 'a@example.com')
  })

  test('admin create makes a platform staff user after init and exits 0, silent on stderr', () => {
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

  test('an unknown verb names the commands of its noun, and exits 2', async () => {
    const result = await runCli(dataDir, ['token', 'mint'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Unknown command "token mint"')
    for (const verb of ['create', 'list', 'revoke']) expect(result.stderr).toContain(`token ${verb}`)
  })

  test('an unknown option is a usage error and exits 2', async () => {
    const result = await tokenCreate(dataDir, 'a@example.com', '--scope', '*')
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--scope')
  })

  test('no command at all prints the usage on stderr and exits 2', async () => {
    const result = await runCli(dataDir, [])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Usage:')
    expect(result.stdout).toBe('')
  })

  test('admin create refuses an e-mail already in use, whatever its case, and exits 1', async () => {
    const result = await adminCreate(dataDir, 'A@Example.com')
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

  test('version prints the package version and needs no installation', async () => {
    const empty = tempDataDir()
    const result = await runCli(empty, ['version'])
    expect(result.exitCode).toBe(0)
    const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      version: string
    }
    expect(result.stdout).toBe(`${version}\n`)
    expect(readdirSync(empty)).toEqual([])
  })
})

describe('a DATA_DIR without an installation', () => {
  test('every command that needs one refuses it naming the directory, exit 2, and creates nothing', async () => {
    const empty = tempDataDir({ engine: 'sqlite' })
    for (const args of [
      ['admin', 'create', '--email', 'x@example.com', '--password-stdin'],
      ['user', 'list'],
      ['token', 'create', '--email', 'x@example.com', '--scopes', '*'],
      ['user', 'disable', '--email', 'x@example.com'],
      ['backup', '--to', join(empty, 'copy.db')],
    ]) {
      const result = await runCliWithInput(empty, args, `${password}\n`)
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toContain(`no Plinth installation in ${empty}`)
      expect(result.stderr).toContain('npm run panel -- init')
      expect(hasStackTrace(result.stderr)).toBe(false)
      expect(result.stdout).toBe('')
    }
    expect(readdirSync(empty)).toEqual([])
  })

  test('a store whose secret.key is missing is refused, not given a new secret', async () => {
    const dataDir = tempDataDir({ engine: 'sqlite' })
    await init(dataDir)
    const secret = readFileSync(join(dataDir, 'secret.key'))
    Bun.spawnSync(['rm', join(dataDir, 'secret.key')])
    const result = await runCli(dataDir, ['user', 'list'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('secret.key')
    expect(existsSync(join(dataDir, 'secret.key'))).toBe(false)
    writeFileSync(join(dataDir, 'secret.key'), secret, { mode: 0o600 })
    expect((await runCli(dataDir, ['user', 'list'])).exitCode).toBe(0)
  })

  test('init creates the store and its secret (0600); run again it changes nothing', async () => {
    const dataDir = tempDataDir({ engine: 'sqlite' })
    const first = await runCli(dataDir, ['init'])
    expect(first.exitCode).toBe(0)
    expect(first.stdout).toContain(`Created a Plinth installation in ${dataDir}`)
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600)
    expect(statSync(join(dataDir, 'plinth.sqlite')).mode & 0o777).toBe(0o600)
    const secret = readFileSync(join(dataDir, 'secret.key'), 'utf8')
    const again = await runCli(dataDir, ['init'])
    expect(again.exitCode).toBe(0)
    expect(again.stdout).toContain('already holds a Plinth installation')
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8')).toBe(secret)
  })
})

describe('passwords', () => {
  let dataDir: string

  beforeAll(async () => {
    dataDir = tempDataDir()
    await init(dataDir)
  })

  test('--password-stdin reads one line from standard input; the user then signs in with it', async () => {
    const result = await runCliWithInput(
      dataDir,
      ['user', 'create', '--email', 'piped@example.com', '--password-stdin'],
      'a piped long password\r\n',
    )
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toBe('')
    const server = await startStandalone(dataDir)
    try {
      const login = await fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'piped@example.com', password: 'a piped long password' }),
      })
      expect(login.status).toBe(200)
    } finally {
      server.process.kill('SIGTERM')
      await server.process.exited
    }
  })

  test('--password still works, with a warning on stderr that others can read it', async () => {
    const result = await runCli(dataDir, [
      'user',
      'create',
      '--email',
      'flag@example.com',
      '--password',
      password,
    ])
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toContain('warning: --password')
    expect(result.stderr).toContain('other users of this machine')
    expect(result.stderr).not.toContain(password)
  })

  test('no password on a pipe is exit 2 saying how to give one; an empty one and both flags too', async () => {
    const none = await runCli(dataDir, ['user', 'create', '--email', 'none@example.com'])
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('--password-stdin')
    const empty = await runCliWithInput(
      dataDir,
      ['user', 'create', '--email', 'e@example.com', '--password-stdin'],
      '\n',
    )
    expect(empty.exitCode).toBe(2)
    expect(empty.stderr).toContain('no password')
    const both = await runCliWithInput(
      dataDir,
      ['user', 'create', '--email', 'b@example.com', '--password', password, '--password-stdin'],
      `${password}\n`,
    )
    expect(both.exitCode).toBe(2)
    const listed = await runCli(dataDir, ['user', 'list'])
    for (const email of ['none@', 'e@example.com', 'b@example.com'])
      expect(listed.stdout).not.toContain(email)
  })

  /** Runs the CLI in a pseudo-terminal (util-linux `script`), typing `answers` at each prompt as it appears. */
  async function inTerminal(args: readonly string[], answers: readonly string[]) {
    const command = [bunBin, 'hosts/cli/main.ts', ...args].map((word) => `'${word}'`).join(' ')
    const proc = Bun.spawn(['script', '-qefc', command, '/dev/null'], {
      cwd: repoRoot,
      env: hostEnv(dataDir),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
    let screen = ''
    const decoder = new TextDecoder()
    const reading = (async () => {
      for await (const chunk of proc.stdout) screen += decoder.decode(chunk, { stream: true })
    })()
    let prompts = 0
    for (const answer of answers) {
      prompts++
      while ((screen.match(/[Pp]assword: /g) ?? []).length < prompts && proc.exitCode === null)
        await Bun.sleep(20)
      proc.stdin.write(`${answer}\r`)
      await proc.stdin.flush()
    }
    proc.stdin.end()
    const exitCode = await proc.exited
    await reading
    clearTimeout(timer)
    return { exitCode, screen }
  }

  const hasScript = Bun.which('script') !== null

  test.skipIf(!hasScript)('in a terminal the password is asked twice and never echoed', async () => {
    const secret = 'typed but never shown'
    const { exitCode, screen } = await inTerminal(
      ['user', 'create', '--email', 'typed@example.com'],
      [secret, secret],
    )
    expect(exitCode).toBe(0)
    expect(screen).toContain('Password: ')
    expect(screen).toContain('Repeat the password: ')
    expect(screen).toContain('Created user typed@example.com')
    expect(screen).not.toContain(secret)
  })

  test.skipIf(!hasScript)('two different passwords at the prompt create no one and exit 1', async () => {
    const { exitCode, screen } = await inTerminal(
      ['user', 'create', '--email', 'typo@example.com'],
      ['the first long password', 'the second long password'],
    )
    expect(exitCode).toBe(1)
    expect(screen).toContain('differ')
    expect((await runCli(dataDir, ['user', 'list'])).stdout).not.toContain('typo@example.com')
  })
})

describe('help', () => {
  test('help lists every command and exits 0; no installation is needed', async () => {
    const empty = tempDataDir()
    const result = await runCli(empty, ['help'])
    expect(result.exitCode).toBe(0)
    for (const command of [
      'init',
      'admin create',
      'user create',
      'user list',
      'user disable',
      'user enable',
      'token create',
      'token list',
      'token revoke',
      'backup',
      'restore',
      'config check',
      'version',
    ])
      expect(result.stdout).toContain(`  ${command}`)
    expect(readdirSync(empty)).toEqual([])
  })

  test('help <command> and <command> --help explain that command alone, exit 0', async () => {
    const empty = tempDataDir()
    for (const args of [
      ['help', 'token', 'create'],
      ['token', 'create', '--help'],
      ['token', 'create', '--email', 'x@example.com', '-h'],
    ]) {
      const result = await runCli(empty, args)
      expect(result.exitCode).toBe(0)
      expect(result.stdout).toContain('Usage: npm run panel -- token create --email E --scopes S')
      expect(result.stdout).not.toContain('user disable')
    }
    for (const [words, synopsis] of [
      [['user', 'disable'], 'user disable --email E'],
      [['backup'], 'backup --to FILE'],
      [['restore'], 'restore --from FILE [--force]'],
      [['config', 'check'], 'config check'],
      [['admin', 'create'], '--password-stdin'],
    ] as const) {
      const result = await runCli(empty, [...words, '--help'])
      expect(result.exitCode).toBe(0)
      expect(result.stdout).toContain(synopsis)
    }
    expect(readdirSync(empty)).toEqual([])
  })

  test('help token lists the token commands; help of an unknown command exits 2', async () => {
    const dataDir = tempDataDir()
    const token = await runCli(dataDir, ['help', 'token'])
    expect(token.exitCode).toBe(0)
    for (const verb of ['create', 'list', 'revoke']) expect(token.stdout).toContain(`token ${verb}`)
    const unknown = await runCli(dataDir, ['help', 'site', 'launch'])
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain('Unknown command "site launch"')
  })
})

describe('users and tokens beside a running server', () => {
  let dataDir: string
  let server: Standalone

  async function api(method: string, path: string, token: string) {
    const response = await fetch(new URL(`/api/v1${path}`, server.url), {
      method,
      headers: { authorization: `Bearer ${token}` },
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  beforeAll(async () => {
    dataDir = tempDataDir()
    server = await startStandalone(dataDir)
    expect((await adminCreate(dataDir, 'root@example.com')).exitCode).toBe(0)
  })

  afterAll(async () => {
    server?.process.kill('SIGTERM')
    await server?.process.exited
  })

  test('user list shows id, e-mail, staff role, brand and disabled; --json the users as the API does', async () => {
    const created = await runCliWithInput(
      dataDir,
      ['user', 'create', '--email', 'listed@example.com', '--password-stdin'],
      password,
    )
    expect(created.exitCode).toBe(0)
    const result = await runCli(dataDir, ['user', 'list'])
    expect(result.exitCode).toBe(0)
    const [header, ...rows] = result.stdout.trimEnd().split('\n')
    expect(header?.split(/\s{2,}/)).toEqual(['ID', 'E-MAIL', 'STAFF', 'BRAND', 'DISABLED'])
    expect(
      rows
        .find((row) => row.includes('root@example.com'))
        ?.split(/\s+/)
        .slice(1),
    ).toEqual(['root@example.com', 'platform', '-', '-'])
    const json = await runCli(dataDir, ['user', 'list', '--json'])
    const users = JSON.parse(json.stdout) as Record<string, unknown>[]
    expect(users.find((user) => user.email === 'listed@example.com')).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: 'listed@example.com',
      staffRole: null,
      brandId: null,
      createdAt: expect.any(String),
      disabledAt: null,
    })
  })

  test('user disable: the server refuses their token on the very next request (401 account_disabled); enable restores it', async () => {
    const email = 'ops@example.com'
    expect((await adminCreate(dataDir, email)).exitCode).toBe(0)
    const token = await createToken(dataDir, email, '--scopes', '*')
    // Used first, so the server keeps the token's caller: the CLI's write must end it.
    expect((await api('GET', '/me', token)).status).toBe(200)
    expect((await api('GET', '/me', token)).status).toBe(200)
    const disabled = await runCli(dataDir, ['user', 'disable', '--email', email])
    expect(disabled.exitCode).toBe(0)
    expect(disabled.stdout).toContain(`Disabled user ${email}`)
    const refused = await api('GET', '/me', token)
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('account_disabled')
    const listed = await runCli(dataDir, ['user', 'list'])
    const row = listed.stdout.split('\n').find((line) => line.includes(email)) ?? ''
    expect(row).toMatch(/\d{4}-\d{2}-\d{2}T\S+Z$/)
    const again = await runCli(dataDir, ['user', 'disable', '--email', email])
    expect(again.exitCode).toBe(0)
    expect(again.stdout).toContain('already disabled')
    const enabled = await runCli(dataDir, ['user', 'enable', '--email', email])
    expect(enabled.exitCode).toBe(0)
    expect((await api('GET', '/me', token)).status).toBe(200)
    const audit = await api('GET', '/audit?action=user.disable', token)
    const [entry] = audit.body.items as { sourceAddress: string; actor: { userId: string | null } }[]
    expect(entry).toMatchObject({ sourceAddress: 'cli', actor: { userId: null } })
  })

  test('user disable or enable of nobody exits 1; without --email it is a usage error (2)', async () => {
    for (const verb of ['disable', 'enable']) {
      const nobody = await runCli(dataDir, ['user', verb, '--email', 'nobody@example.com'])
      expect(nobody.exitCode).toBe(1)
      expect(nobody.stderr).toContain('nobody@example.com')
      const bare = await runCli(dataDir, ['user', verb])
      expect(bare.exitCode).toBe(2)
      expect(bare.stderr).toContain('--email is required')
    }
  })

  test('token list shows ids, names, scopes, customer, expiry and last use, never the secret', async () => {
    const token = await createToken(
      dataDir,
      'root@example.com',
      '--scopes',
      'site:read,user:read',
      '--name',
      'deploy bot',
    )
    expect((await api('GET', '/me', token)).status).toBe(200)
    const result = await runCli(dataDir, ['token', 'list', '--email', 'root@example.com'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).not.toContain(token)
    expect(result.stdout).not.toContain('plinth_')
    const [header, ...rows] = result.stdout.trimEnd().split('\n')
    expect(header?.split(/\s{2,}/)).toEqual(['ID', 'NAME', 'SCOPES', 'CUSTOMER', 'EXPIRES', 'LAST USED'])
    const row = rows.find((line) => line.includes('deploy bot')) ?? ''
    expect(row).toMatch(/^tok_[0-9A-Z]{26}\s+deploy bot\s+site:read,user:read\s+-\s+\S+Z\s+\S+Z$/)
    const json = JSON.parse(
      (await runCli(dataDir, ['token', 'list', '--email', 'root@example.com', '--json'])).stdout,
    )
    expect(JSON.stringify(json)).not.toContain(token)
  })

  test('token revoke: the server refuses the token on the very next request; again it exits 1', async () => {
    const token = await createToken(dataDir, 'root@example.com', '--scopes', '*', '--name', 'to revoke')
    const me = await api('GET', '/me', token)
    expect(me.status).toBe(200)
    const { id } = me.body.token as { id: string }
    const revoked = await runCli(dataDir, ['token', 'revoke', '--id', id])
    expect(revoked.exitCode).toBe(0)
    expect(revoked.stdout).toContain(`Revoked token ${id}`)
    const refused = await api('GET', '/me', token)
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('invalid_token')
    const again = await runCli(dataDir, ['token', 'revoke', '--id', id])
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain(id)
    const listed = await runCli(dataDir, ['token', 'list', '--email', 'root@example.com'])
    expect(listed.stdout).not.toContain(id)
  })

  test('token revoke with a malformed id or without one is a usage error (2)', async () => {
    for (const args of [
      ['token', 'revoke', '--id', 'nope'],
      ['token', 'revoke'],
    ]) {
      const result = await runCli(dataDir, args)
      expect(result.exitCode).toBe(2)
    }
  })
})

describe('backup and restore', () => {
  let dataDir: string
  let server: Standalone
  let token: string
  let backupFile: string

  async function post(base: string, path: string, body: unknown) {
    const response = await fetch(`${base}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return response.status
  }

  beforeAll(async () => {
    dataDir = tempDataDir({ engine: 'sqlite' })
    server = await startStandalone(dataDir)
    expect((await adminCreate(dataDir, 'backup@example.com')).exitCode).toBe(0)
    token = await createToken(dataDir, 'backup@example.com', '--scopes', '*')
    backupFile = join(tempDataDir({ engine: 'sqlite' }), 'nested', 'plinth-backup.db')
  })

  afterAll(async () => {
    server?.process.kill('SIGTERM')
    await server?.process.exited
  })

  test('backup while the server takes writes: a consistent snapshot and its secret, both 0600', async () => {
    let writing = true
    let made = 0
    const writer = (async () => {
      while (writing) {
        expect(await post(server.url, '/customers', { name: `Customer ${made}` })).toBe(201)
        made++
      }
    })()
    await Bun.sleep(100)
    const result = await runCli(dataDir, ['backup', '--to', backupFile])
    writing = false
    await writer
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain(backupFile)
    expect(result.stdout).toContain(`${backupFile}.secret.key`)
    expect(statSync(backupFile).mode & 0o777).toBe(0o600)
    expect(statSync(`${backupFile}.secret.key`).mode & 0o777).toBe(0o600)
    expect(readFileSync(`${backupFile}.secret.key`, 'utf8')).toBe(
      readFileSync(join(dataDir, 'secret.key'), 'utf8'),
    )
    expect(made).toBeGreaterThan(0)
    expect(readdirSync(join(backupFile, '..')).sort()).toEqual([
      'plinth-backup.db',
      'plinth-backup.db.secret.key',
    ])
  })

  test('backup never replaces a file', async () => {
    const result = await runCli(dataDir, ['backup', '--to', backupFile])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('already exists')
  })

  test('restore into an empty DATA_DIR: a server there serves the snapshot, and the old token works', async () => {
    const target = tempDataDir({ engine: 'sqlite' })
    const result = await runCli(target, ['restore', '--from', backupFile])
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(statSync(join(target, 'plinth.sqlite')).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(target, 'secret.key'), 'utf8')).toBe(
      readFileSync(join(dataDir, 'secret.key'), 'utf8'),
    )
    const restored = await startStandalone(target)
    try {
      const response = await fetch(`${restored.url}/api/v1/customers?limit=100`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(response.status).toBe(200)
      const { items } = (await response.json()) as { items: { name: string }[] }
      // Customers are made one after another: a consistent snapshot holds an unbroken run of them.
      const numbers = items.map((item) => Number(item.name.replace('Customer ', ''))).sort((a, b) => a - b)
      expect(numbers).toEqual(numbers.map((_, index) => index))
    } finally {
      restored.process.kill('SIGTERM')
      await restored.process.exited
    }
  })

  test('restore refuses an existing installation without --force, and one a server has open even with it', async () => {
    const refused = await runCli(dataDir, ['restore', '--from', backupFile])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain('--force')
    const busy = await runCli(dataDir, ['restore', '--from', backupFile, '--force'])
    expect(busy.exitCode).toBe(1)
    expect(busy.stderr).toContain('open in another process')
    expect((await post(server.url, '/customers', { name: 'Still served' })).toString()).toBe('201')
  })

  test('restore --force replaces a stopped installation', async () => {
    const target = tempDataDir({ engine: 'sqlite' })
    await init(target)
    const result = await runCli(target, ['restore', '--from', backupFile, '--force'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('replacing the installation there')
    const users = await runCli(target, ['user', 'list'])
    expect(users.stdout).toContain('backup@example.com')
  })

  test('restore refuses a file that is not a Plinth store, and a snapshot without its secret', async () => {
    const folder = tempDataDir({ engine: 'sqlite' })
    const notSqlite = join(folder, 'notes.txt')
    writeFileSync(notSqlite, 'hello, this is not a database at all')
    const plainSqlite = join(folder, 'other.db')
    const { Database } = await import('bun:sqlite')
    const other = new Database(plainSqlite, { create: true })
    other.exec('create table things (id integer)')
    other.close()
    for (const [file, reason] of [
      [notSqlite, 'not a SQLite database'],
      [plainSqlite, 'not a Plinth store'],
      [join(folder, 'missing.db'), 'no file'],
    ] as const) {
      const result = await runCli(tempDataDir({ engine: 'sqlite' }), ['restore', '--from', file])
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toContain(reason)
    }
    const lonely = join(folder, 'lonely.db')
    writeFileSync(lonely, readFileSync(backupFile))
    const target = tempDataDir({ engine: 'sqlite' })
    const noSecret = await runCli(target, ['restore', '--from', lonely])
    expect(noSecret.exitCode).toBe(1)
    expect(noSecret.stderr).toContain('secret')
    expect(readdirSync(target)).toEqual([])
  })
})

describe('config check and start-up errors', () => {
  test('a good configuration answers ok and exit 0, without touching DATA_DIR', async () => {
    const empty = tempDataDir()
    const result = await runCli(empty, ['config', 'check'], {
      PLINTH_CONFIG: 'examples/dns-zones/plinth.config.ts',
    })
    expect(result.exitCode).toBe(0)
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('ok')
    expect(result.stdout).toContain('holds no installation yet')
    expect(readdirSync(empty)).toEqual([])
  })

  test('every problem at once, a line each, no stack trace, exit 2', async () => {
    const result = await runCli(tempDataDir(), ['config', 'check'], {
      PORT: 'eighty',
      JOB_WORKERS: '0',
      BILLING_CHECKOUT: 'maybe',
      PLINTH_CONFIG: 'nowhere/plinth.config.ts',
    })
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(4)
    for (const name of ['PORT', 'JOB_WORKERS', 'BILLING_CHECKOUT', 'PLINTH_CONFIG'])
      expect(lines.filter((line) => line.startsWith(`plinth: ${name}`))).toHaveLength(1)
    expect(hasStackTrace(result.stderr)).toBe(false)
  })

  test('a PLINTH_CONFIG that does not give a plugin list, and settings the plugins refuse, are problems', async () => {
    const folder = tempDataDir()
    const config = join(folder, 'bad.config.ts')
    writeFileSync(config, 'export default 42\n')
    const bad = await runCli(tempDataDir(), ['config', 'check'], { PLINTH_CONFIG: config })
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('PLINTH_CONFIG')
    expect(hasStackTrace(bad.stderr)).toBe(false)
    const limits = await runCli(tempDataDir(), ['config', 'check'], {
      DEFAULT_CUSTOMER_LIMITS: 'sites=1,teleports=3',
    })
    expect(limits.exitCode).toBe(2)
    expect(limits.stderr).toContain('teleports')
    expect(hasStackTrace(limits.stderr)).toBe(false)
  })

  test('any command reports every malformed setting at once, a line each, exit 2, before doing anything', async () => {
    const dataDir = tempDataDir()
    await init(dataDir)
    const result = await runCli(dataDir, ['user', 'list'], { PORT: '-1', RATE_LIMIT_PER_MINUTE: 'lots' })
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toEqual([expect.stringContaining('PORT'), expect.stringContaining('RATE_LIMIT_PER_MINUTE')])
    expect(hasStackTrace(result.stderr)).toBe(false)
  })
})

describe('the CLI for brand staff and team members', () => {
  let dataDir: string

  beforeAll(async () => {
    dataDir = tempDataDir()
    await init(dataDir)
    expect((await adminCreate(dataDir, 'root@example.com')).exitCode).toBe(0)
  })

  test('admin create --brand with an unknown brand exits 1 naming unknown_brand', async () => {
    const result = await runCliWithInput(
      dataDir,
      ['admin', 'create', '--email', 'b@example.com', '--password-stdin', '--brand', 'brd_nope'],
      password,
    )
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('unknown_brand')
  })

  test('user create makes a plain user, whose token can hold nothing until a team takes them in', async () => {
    const created = await runCliWithInput(
      dataDir,
      ['user', 'create', '--email', 'member@example.com', '--password-stdin'],
      password,
    )
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
    // The README's first steps: the server makes the installation, then the CLI works on it.
    server = await startStandalone(dataDir)
    const admin = await runCli(dataDir, [
      'admin',
      'create',
      '--email',
      'ops@example.com',
      '--password',
      password,
    ])
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
    // The site as created, without its WordPress administrator: that is shown once, in the 201 answer only.
    const { wordpress: _shownOnce, ...site } = created.json as Record<string, unknown>
    expect(read.json).toEqual(site)
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
