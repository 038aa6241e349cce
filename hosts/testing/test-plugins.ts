// The standard plugins for tests: the local node's files go to a fresh temporary directory, removed at exit.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PluginDefinition } from '../../core/index.ts'
import { standardPlugins } from '../standard-panel.ts'

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

/** {@link standardPlugins} on a temporary data directory; webhooks may reach `allowedHosts` (loopback receivers). */
export function testStandardPlugins(allowedHosts: readonly string[] = []): PluginDefinition[] {
  return standardPlugins({ dataDir: temporaryDataDir(), webhookAllowedHosts: allowedHosts })
}
