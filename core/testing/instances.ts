// Several test panels on one store, as the instances of one installation behind a load balancer: what is shared
// between them is what the store holds (on PostgreSQL, rate windows and failed logins too).

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKernelTestPanel, type KernelTestPanelOptions, type TestPanel } from './create-test-panel.ts'

/**
 * `count` panels (default 2) of the same options on one fresh store, made one after the other (the first
 * migrates it). On SQLite they are two connections to one file in one process: what the store keeps is shared, what
 * a panel keeps in memory is not, as with two processes. Close each.
 */
export async function createTestInstances(
  options: Omit<KernelTestPanelOptions, 'storePath'>,
  count = 2,
): Promise<TestPanel[]> {
  const storePath = join(mkdtempSync(join(tmpdir(), 'plinth-instances-')), 'plinth.sqlite')
  const instances: TestPanel[] = []
  for (let i = 0; i < count; i++) instances.push(await createKernelTestPanel({ ...options, storePath }))
  return instances
}
