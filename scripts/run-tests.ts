// `npm test`'s test step: the whole suite on the embedded SQLite store, then again on PostgreSQL (the kernel's and
// every plugin's store-dependent tests, and the real server and CLI with DATABASE_URL) but for the tests of the node
// side, which the store does not change: they run once. Each run writes its own JUnit report; .ci/run adds them up.
// A PostgreSQL that cannot be reached fails the run, saying so: never skipped.

import postgres from 'postgres'

const databaseUrl = process.env.PLINTH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const runs = [
  { engine: 'sqlite', report: 'test-results.xml' },
  { engine: 'postgres', report: 'test-results-postgres.xml' },
] as const

/** Why PostgreSQL cannot be used for the tests, or null when it can. */
async function postgresProblem(): Promise<string | null> {
  const sql = postgres(databaseUrl, { max: 1, connect_timeout: 10, onnotice: () => {} })
  try {
    await sql`select 1`
    return null
  } catch (error) {
    return (error as Error).message
  } finally {
    await sql.end({ timeout: 1 })
  }
}

/**
 * The tests of the node side (nginx, PHP-FPM, MariaDB, the agent, a browser driving the console): what they test
 * runs on nodes or in the browser, whatever store the panel keeps, so the PostgreSQL run leaves them out. Code in a
 * `node/` folder reaches no store at all (core/architecture.test.ts).
 */
const nodeSide = [
  '{plugins,examples}/*/node/**/*.test.ts',
  'plugins/databases/engines/*.test.ts',
  // The backups tests' own SFTP, REST and S3 peers against restic: no store involved.
  'plugins/backups/testing/*.test.ts',
  'hosts/node-agent*.test.ts',
  'hosts/node-readiness.test.ts',
  'hosts/first-site.test.ts',
  'plugins/files/existence-oracle.test.ts',
  'plugins/files/disk-full.test.ts',
  'plugins/wordpress/agent.test.ts',
  'plugins/wordpress/restore-adapter.test.ts',
  'plugins/wordpress/clone.e2e.test.ts',
  'plugins/backups/**/*.e2e.test.ts',
  'plugins/staging/**/*.e2e.test.ts',
  'plugins/logs/**/*.e2e.test.ts',
  'plugins/php/**/*.e2e.test.ts',
  'plugins/cache/**/*.e2e.test.ts',
  'plugins/cron/**/*.e2e.test.ts',
  'plugins/redirects/**/*.e2e.test.ts',
  'plugins/console/**/*.e2e.test.ts',
  '{plugins,examples}/*/console/*.e2e.test.ts',
  'examples/*/*.e2e.test.ts',
  'hosts/testing/browser.test.ts',
]

/** Every test file but the node side's, for the PostgreSQL run. */
function storeTests(): string[] {
  const once = new Set(nodeSide.flatMap((pattern) => [...new Bun.Glob(pattern).scanSync({ cwd: '.' })]))
  return [...new Bun.Glob('{core,plugins,hosts,examples,scripts,bench}/**/*.test.ts').scanSync({ cwd: '.' })]
    .filter((file) => !once.has(file) && !file.includes('node_modules'))
    .sort()
    .map((file) => `./${file}`)
}

let failed = false
for (const { engine, report } of runs) {
  console.log(`\n=== bun test on ${engine} (report: ${report}) ===\n`)
  if (engine === 'postgres') {
    const problem = await postgresProblem()
    if (problem) {
      console.error(
        `The PostgreSQL test run needs a server at ${databaseUrl} (PLINTH_TEST_DATABASE_URL): ${problem}. .ci/run sets one up on Debian (.ci/ensure-postgres); see the README.`,
      )
      failed = true
      continue
    }
  }
  const files = engine === 'postgres' ? storeTests() : []
  const run = Bun.spawn(
    [
      process.execPath,
      'test',
      '--timeout',
      '20000',
      '--reporter=junit',
      `--reporter-outfile=${report}`,
      ...files,
    ],
    {
      env: { ...process.env, PLINTH_TEST_STORE: engine },
      stdio: ['inherit', 'inherit', 'inherit'],
    },
  )
  if ((await run.exited) !== 0) failed = true
}
process.exit(failed ? 1 : 0)
