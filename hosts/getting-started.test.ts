// docs/getting-started.md works when pasted: its shell blocks run in order, in bash, against a real server started
// as the page says, each step must exit 0, and what the steps print must match the JSON the page shows (same
// fields; the same values but for ids and times, which must have the documented form).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { hostEnv, repoRoot } from './testing/host-process.ts'
import { createProcessTracker, type Standalone, tokenPattern } from './testing/index.ts'

const pagePath = join(repoRoot, 'docs', 'getting-started.md')

/** A fenced block of the page, under the heading it appears beneath. */
interface Block {
  readonly lang: string
  readonly code: string
  readonly heading: string
}

/** The fenced code blocks of a Markdown text, in order. */
function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = []
  let heading = ''
  let open: { lang: string; heading: string; lines: string[] } | null = null
  for (const line of markdown.split('\n')) {
    if (open) {
      if (line.trimEnd() === '```') {
        blocks.push({ lang: open.lang, code: open.lines.join('\n'), heading: open.heading })
        open = null
      } else open.lines.push(line)
      continue
    }
    const fence = /^```(\S*)\s*$/.exec(line)
    if (fence) open = { lang: fence[1] ?? '', heading, lines: [] }
    else if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '').trim()
  }
  if (open) throw new Error(`Unclosed code block under "${open.heading}"`)
  return blocks
}

/**
 * The JSON values in `text`, in order: a value starting with `{` or `[` may span lines (as `jq .` prints it); a
 * line that is a JSON value by itself counts too; other lines (npm's banner, the CLI's messages) are skipped.
 */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = []
  const lines = text.split('\n')
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? '').trim()
    if (line === '') continue
    if (line.startsWith('{') || line.startsWith('[')) {
      let parsed: { value: unknown } | undefined
      for (let end = index; end < lines.length && !parsed; end++) {
        try {
          parsed = { value: JSON.parse(lines.slice(index, end + 1).join('\n')) }
          index = end
        } catch {
          // not complete yet
        }
      }
      if (!parsed) throw new Error(`Unterminated JSON from line ${index + 1}:\n${text}`)
      values.push(parsed.value)
      continue
    }
    try {
      values.push(JSON.parse(line))
    } catch {
      // a line of text
    }
  }
  return values
}

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const documentedId = /^([a-z]+)_[0-9A-Z]{26}$/

/**
 * How `actual` differs from what the page shows: every field the page shows and no other, with its value, except
 * that an id stands for any id of its type (the same one wherever the page repeats it), a time for any time, and
 * `prefix…` for any string so beginning.
 */
function differences(shown: unknown, actual: unknown, where: string, ids: Map<string, string>): string[] {
  const got = JSON.stringify(actual)
  if (typeof shown === 'string') {
    if (typeof actual !== 'string') return [`${where}: the page shows a string, the answer has ${got}`]
    const cut = shown.indexOf('…')
    if (cut >= 0)
      return actual.length > cut && actual.startsWith(shown.slice(0, cut))
        ? []
        : [`${where}: ${got} does not begin like ${JSON.stringify(shown)}`]
    const id = documentedId.exec(shown)
    if (id) {
      if (!new RegExp(`^${id[1]}_[0-9A-Z]{26}$`).test(actual))
        return [`${where}: ${got} is not an id of the form ${shown}`]
      const bound = ids.get(shown) ?? actual
      ids.set(shown, bound)
      return bound === actual ? [] : [`${where}: ${got}, where the page shows ${shown} again (${bound})`]
    }
    if (isoTime.test(shown)) return isoTime.test(actual) ? [] : [`${where}: ${got} is not an ISO time`]
    return shown === actual ? [] : [`${where}: ${got}, the page shows ${JSON.stringify(shown)}`]
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual) || actual.length !== shown.length)
      return [`${where}: the page shows ${shown.length} items, the answer has ${got}`]
    return shown.flatMap((item, index) => differences(item, actual[index], `${where}[${index}]`, ids))
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${where}: the page shows an object, the answer has ${got}`]
    const expected = shown as Record<string, unknown>
    const answered = actual as Record<string, unknown>
    return [
      ...Object.keys(answered)
        .filter((key) => !(key in expected))
        .map((key) => `${where}.${key}: answered, not on the page`),
      ...Object.keys(expected).flatMap((key) =>
        key in answered
          ? differences(expected[key], answered[key], `${where}.${key}`, ids)
          : [`${where}.${key}: on the page, not answered`],
      ),
    ]
  }
  return Object.is(shown, actual) ? [] : [`${where}: ${got}, the page shows ${JSON.stringify(shown)}`]
}

/** What must hold of the shell's variables after each section's steps, by section heading. */
const afterSection: Readonly<Record<string, (vars: Readonly<Record<string, string>>) => void>> = {
  '1. Make the first staff user and a token': (vars) => {
    expect(vars.PANEL).toBe(server.url)
    expect(vars.TOKEN).toMatch(tokenPattern)
  },
  '2. Create a customer (staff)': (vars) => expect(vars.CUSTOMER).toMatch(/^cus_[0-9A-Z]{26}$/),
  '3. Create a WordPress site': (vars) => {
    expect(vars.SITE).toMatch(/^site_[0-9A-Z]{26}$/)
    expect(vars.JOB).toMatch(/^job_[0-9A-Z]{26}$/)
  },
  '4. Watch it become active': () => {},
  '5. Learn of changes by webhook instead of polling': () => {},
  '6. Sell a plan': (vars) => expect(vars.PLAN).toMatch(/^pln_[0-9A-Z]{26}$/),
  '7. Give the customer a team, and its owner a token': (vars) => {
    expect(vars.CSRF).toMatch(/^\S{20,}$/)
    expect(vars.OWNER_TOKEN).toMatch(tokenPattern)
  },
  '8. When something is wrong': () => {},
}

/** The page's first block starts the server: `npm ci`, then `npm start` with the settings it shows. */
function startCommand(block: Block): { settings: Record<string, string>; printed: RegExp } {
  const lines = block.code.split('\n').map((line) => line.trim())
  const commands = lines.filter((line) => line !== '' && !line.startsWith('#'))
  expect(commands).toHaveLength(2)
  expect(commands[0]).toBe('npm ci')
  const launch = /^((?:[A-Z_]+=\S+\s+)*)npm start$/.exec(commands[1] ?? '')
  expect(launch, `"${commands[1]}" starts the server`).not.toBeNull()
  const settings = Object.fromEntries(
    (launch?.[1] ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((assignment) => [
        assignment.slice(0, assignment.indexOf('=')),
        assignment.slice(assignment.indexOf('=') + 1),
      ]),
  )
  // The comment shows the line the server prints: `…` stands for anything, a number for any number.
  const shown =
    lines.find((line) => line.startsWith('# ') && line.includes('Plinth panel listening on'))?.slice(2) ?? ''
  expect(shown).not.toBe('')
  const pattern = shown
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\d+/g, '\\d+')
    .replace(/…/g, '.*')
  // Found anywhere in the output: the server may print it inside a structured log line.
  return { settings, printed: new RegExp(pattern) }
}

/** Installs Debian's jq when the machine lacks it, as the page tells its readers to. */
async function ensureJq(): Promise<void> {
  if (Bun.which('jq')) return
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const command of ['apt-get install -y jq', 'apt-get update && apt-get install -y jq']) {
    const install = Bun.spawn(['sh', '-c', command], { env, stdout: 'ignore', stderr: 'pipe' })
    const [stderr] = await Promise.all([new Response(install.stderr).text(), install.exited])
    if (Bun.which('jq')) return
    console.error(`${command}: ${stderr}`)
  }
  throw new Error('docs/getting-started.md needs jq: install it (apt-get install -y jq)')
}

/** Runs one step in bash as a reader's terminal would, carrying its variables on; answers its output. */
async function runStep(
  code: string,
  env: Record<string, string>,
  stateFile: string,
): Promise<{ exitCode: number; stdout: string; stderr: string; env: Record<string, string> }> {
  const script = [
    'set -euo pipefail',
    // Every variable a step sets reaches the next step, as it would in one terminal.
    'set -a',
    `trap 'echo "failed with status $? at: $BASH_COMMAND" >&2' ERR`,
    code,
    'env -0 > "$GETTING_STARTED_STATE"',
  ].join('\n')
  const step = Bun.spawn(['bash', '-c', script], {
    cwd: repoRoot,
    env: { ...env, GETTING_STARTED_STATE: stateFile },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 30_000,
  })
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(step.stdout).text(),
    new Response(step.stderr).text(),
    step.exited,
  ])
  if (exitCode !== 0) return { exitCode, stdout, stderr, env }
  const carried = Object.fromEntries(
    readFileSync(stateFile, 'utf8')
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  )
  return { exitCode, stdout, stderr, env: carried }
}

const tracker = createProcessTracker('plinth-getting-started-')
let server: Standalone

// Installing jq, when a fresh machine lacks it, may first refresh Debian's package lists: allowed a minute.
beforeAll(ensureJq, 60_000)

afterAll(async () => {
  await tracker.cleanup()
})

describe('docs/getting-started.md', () => {
  // 3 to 7 s: a real server, three CLI runs through npm (each opens the store; two hash a password), ~20 requests.
  test('works when pasted: every step succeeds in order and prints what the page shows', async () => {
    const blocks = fencedBlocks(readFileSync(pagePath, 'utf8'))
    const start = blocks.find((block) => block.lang === 'sh')
    if (!start) throw new Error('The page has no shell block')
    expect(start.heading).toBe('Getting started')
    expect(blocks.every((block) => ['sh', 'json', ''].includes(block.lang))).toBe(true)
    const rest = blocks.slice(blocks.indexOf(start) + 1)
    // Every section with commands has its checks here, so a new section cannot go untested.
    expect([...new Set(rest.filter((block) => block.lang === 'sh').map((block) => block.heading))]).toEqual(
      Object.keys(afterSection),
    )

    // Named like the default `./data`, as the page shows it.
    const dataDir = join(tracker.tempDataDir(), 'data')
    mkdirSync(dataDir)
    const { settings, printed } = startCommand(start)
    server = await tracker.startStandalone(dataDir, settings)
    expect(server.stdout.text).toMatch(printed)

    // The second terminal: the same DATA_DIR and PORT as the server, as the page asks.
    const port = new URL(server.url).port
    let env = hostEnv(dataDir, { PORT: port, TMPDIR: tracker.tempDataDir() }) as Record<string, string>
    const stateFile = join(tracker.tempDataDir(), 'state')
    const ids = new Map<string, string>()
    let step = 0
    for (const [index, block] of rest.entries()) {
      if (block.lang !== 'sh') continue
      step += 1
      const where = `step ${step} (under "${block.heading}")`
      // The port follows PORT: a step that named the default port would miss a server started elsewhere.
      expect(block.code, where).not.toMatch(/:3000\b(?!\})/)
      const ran = await runStep(block.code, env, stateFile)
      expect(
        ran.exitCode,
        `${where} failed:\n${block.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`,
      ).toBe(0)
      env = ran.env
      // The JSON blocks after a step, up to the next step, show what it prints.
      const shown: unknown[] = []
      for (const next of rest.slice(index + 1)) {
        if (next.lang === 'sh') break
        if (next.lang === 'json') shown.push(...jsonValues(next.code))
      }
      const printedValues = jsonValues(ran.stdout)
      expect(
        printedValues.length,
        `${where} prints as many JSON values as the page shows:\n${ran.stdout}`,
      ).toBe(shown.length)
      const found = shown.flatMap((value, at) =>
        differences(value, printedValues[at], `${where} #${at + 1}`, ids),
      )
      expect(found).toEqual([])
      const following = rest.slice(index + 1).find((next) => next.lang === 'sh')
      if (following?.heading !== block.heading) afterSection[block.heading]?.(env)
    }
    expect(server.process.exitCode).toBeNull()
  }, 60_000)
})
