// Temporary data directories for tests: the local node's files go there, removed when the test process exits.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary data directory, removed when the test process exits. */
export function temporaryDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plinth-test-'))
  made.push(dir)
  return dir
}
