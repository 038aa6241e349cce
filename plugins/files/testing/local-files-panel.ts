// The files tests' panel: the files API over a local node that serves its sites (nginx, PHP-FPM, a Unix user per
// site), its data in a fresh folder, its jobs and events polled fast enough for a test to wait on them.

import { chmodSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestPanel, freePort, type TestPanel } from '../../../hosts/testing/index.ts'
import { brandsPlugin } from '../../brands/index.ts'
import { customersPlugin } from '../../customers/index.ts'
import { nodesPlugin } from '../../nodes/index.ts'
import { sitesPlugin } from '../../sites/index.ts'
import { type FilesOptions, filesPlugin } from '../index.ts'

/** A test's folder (`folder`) and its local node's data directory in it (`nodeDir`). */
export function filesTestFolder(prefix: string): { folder: string; nodeDir: string } {
  const folder = mkdtempSync(join(tmpdir(), prefix))
  // nginx's workers and the sites' users pass through to the node's data directory.
  chmodSync(folder, 0o711)
  return { folder, nodeDir: join(folder, 'node') }
}

/** The panel over the folder's node, started; its sites are served on `httpPort` (a free one unless given). */
export async function startFilesPanel(
  folder: string,
  options: { files?: FilesOptions; httpPort?: number } = {},
): Promise<TestPanel> {
  const tp = await createTestPanel({
    standard: false,
    plugins: [
      brandsPlugin(),
      customersPlugin(),
      nodesPlugin({
        dataDir: join(folder, 'panel'),
        localServing: {
          dataDir: join(folder, 'node'),
          httpPort: options.httpPort ?? freePort(),
          httpsPort: freePort(),
        },
      }),
      sitesPlugin(),
      filesPlugin(options.files),
    ],
    storePath: join(folder, 'panel.sqlite'),
    jobs: { pollIntervalMs: 10, retryBaseMs: 10, retryMaxMs: 50 },
    events: { pollIntervalMs: 10 },
  })
  tp.panel.start()
  return tp
}
