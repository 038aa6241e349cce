// A node upgraded from a runtime whose sites shared one PHP-FPM master: each site with a pool in it gets its own
// master, its server block sends to the new socket (nginx reloaded, the old master serving until then), and only
// then is the shared master stopped and its files removed. Each step is safe to repeat: a runtime killed half-way
// moves the rest when it starts again.

import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { NodeFailure } from '../contract.ts'
import { siteLayout } from './layout.ts'
import { createSharedPhpFpm } from './php-fpm.ts'
import type { RuntimeCore } from './runtime-core.ts'
import type { ServingStack } from './serving-stack.ts'
import { readSiteFile } from './site-home.ts'
import { ensureSitePhp } from './site-php.ts'
import { readSiteState, recordedSpec } from './site-state.ts'
import { findUser } from './unix-users.ts'

const never = new AbortController().signal

/** What the move did: the sites moved, and those that could not be (their block still sends to the old socket). */
export interface SharedMasterMove {
  readonly moved: string[]
  readonly failed: ReadonlyArray<{ readonly siteId: string; readonly error: string }>
}

/**
 * Moves every site off the shared master, then stops it, when the node still has one (its `php-fpm.conf`); nothing
 * otherwise. A site that cannot move keeps the shared master running (its PHP is served meanwhile) until a later
 * start moves it.
 */
export async function moveOffSharedMaster(core: RuntimeCore, stack: ServingStack): Promise<SharedMasterMove> {
  const { php } = core.layout
  const shared = createSharedPhpFpm({ binary: stack.phpSettings.binary, layout: core.layout })
  const pools = (await readdir(php.shared.pools).catch(() => [] as string[])).filter(
    (name) => name.endsWith('.conf') && !name.startsWith('_'),
  )
  const hasShared = pools.length > 0 || (await readSiteFile(php.shared.conf)) !== null
  if (!hasShared) return { moved: [], failed: [] }
  const moved: string[] = []
  const failed: { siteId: string; error: string }[] = []
  for (const file of pools) {
    const siteId = file.slice(0, -'.conf'.length)
    try {
      await core.siteLocked(siteId, async () => {
        const state = await readSiteState(join(core.layout.sites, siteId, 'state.json')).catch(() => null)
        if (state?.siteId === siteId && state.state === 'active') {
          const spec = recordedSpec(state)
          const paths = siteLayout(core.layout, spec)
          const user = core.unixUsers && state.unixUser ? await findUser(state.unixUser) : null
          if (core.unixUsers && !user)
            throw new NodeFailure(`the site's user ${state.unixUser} is missing`, 'unix_user_missing')
          await ensureSitePhp(stack, spec, paths, user, never)
          // The block names the old socket; the same block with the new one is what the site's next change writes.
          const block = await readSiteFile(paths.serverBlock, 1_048_576)
          const oldSocket = join(php.run, `${paths.user}.sock`)
          if (block?.includes(oldSocket))
            await core.change(
              stack.nginx,
              paths.serverBlock,
              block.replaceAll(oldSocket, paths.socket),
              never,
            )
        }
        await rm(join(php.shared.pools, file), { force: true })
      })
      moved.push(siteId)
    } catch (error) {
      failed.push({ siteId, error: (error as Error).message })
    }
  }
  if (failed.length > 0) return { moved, failed }
  await shared.stop()
  for (const path of [php.shared.conf, php.shared.pid, `${php.dir}/reload-pending`])
    await rm(path, { force: true })
  await rm(php.shared.pools, { recursive: true, force: true })
  for (const name of await readdir(php.run).catch(() => [] as string[]))
    if (name.endsWith('.sock')) await rm(join(php.run, name), { force: true })
  return { moved, failed }
}
