import { describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKernelTestPanel } from '../testing/create-test-panel.ts'
import { InstallationSecretMismatch } from './installation-secret.ts'

describe('the installation secret', () => {
  test('a store made with one secret refuses to start with another, and starts again with its own', async () => {
    const storePath = join(mkdtempSync(join(tmpdir(), 'plinth-secret-')), 'plinth.sqlite')
    const secret = 'the-first-secret-of-this-installation-0123'
    const first = await createKernelTestPanel({ plugins: [], storePath, secret })
    await first.panel.close()
    const refused = await createKernelTestPanel({
      plugins: [],
      storePath,
      secret: 'another-secret-entirely-for-this-store-9876',
    }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(InstallationSecretMismatch)
    const again = await createKernelTestPanel({ plugins: [], storePath, secret })
    expect((await again.request('GET', '/readyz')).status).toBe(200)
    await again.panel.close()
  })
})
