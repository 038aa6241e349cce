// Serving a site over HTTPS: installing, replacing and removing its certificate, on the site as its `state.json`
// recorded it, in an order that never leaves a client without a certificate nor nginx naming a missing file.

import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { SiteCertificate } from '../contract.ts'
import { writeFileAtomic } from './atomic-files.ts'
import { type SiteLayout, siteLayout } from './layout.ts'
import type { RuntimeCore } from './runtime-core.ts'
import type { ServingStack } from './serving-stack.ts'
import {
  checkCertificate,
  checkCertificateSiteId,
  removeCertificateFiles,
  writeCertificateFiles,
} from './site-certificates.ts'
import { existingKind } from './site-home.ts'
import type { SiteRuntime } from './site-runtime.ts'
import { readSiteState, recordedServedSpec, type SiteState, stateFile } from './site-state.ts'

/** What serving sites over HTTPS needs of the runtime. */
export type HttpsHost = Pick<RuntimeCore, 'layout' | 'serving' | 'locked' | 'siteLocked' | 'blockOf'>

/** The runtime's certificate operations over `host`. */
export function siteHttps(host: HttpsHost): Pick<SiteRuntime, 'installCertificate' | 'removeCertificate'> {
  const { layout } = host

  /** The site as its `state.json` recorded it, or null when it is not on the node. */
  async function recorded(siteId: string) {
    const home = join(layout.sites, siteId)
    if ((await existingKind(home)) === 'absent') return null
    const state = await readSiteState(join(home, 'state.json'))
    if (state?.siteId !== siteId) return null
    const spec = await recordedServedSpec(layout, state)
    return { state, spec, paths: siteLayout(layout, spec) }
  }

  /** Records the site's state with `certificate` (root's alone). */
  const record = (paths: SiteLayout, state: SiteState, certificate: string | null, signal: AbortSignal) =>
    writeFileAtomic(
      paths.state,
      stateFile({ ...state, certificate, updatedAt: new Date().toISOString() }),
      signal,
      0o600,
    )

  /**
   * Writes the block, checked by nginx when serving; `refused` runs when the block was not changed (nginx refused
   * it, which puts the previous one back), then the change is reloaded.
   */
  const putBlock = (
    stack: ServingStack | null,
    paths: SiteLayout,
    block: string,
    signal: AbortSignal,
    refused: () => Promise<void> = async () => {},
  ) =>
    host.locked(async () => {
      try {
        if (stack) await stack.nginx.put(paths.serverBlock, block, signal)
        else await writeFileAtomic(paths.serverBlock, block, signal)
      } catch (error) {
        await refused()
        throw error
      }
      await stack?.nginx.applyPending()
    })

  return {
    /**
     * The new files beside the ones served now, then the block naming them, checked and reloaded, then the state,
     * then the replaced certificate's files removed: a client gets the old certificate or the new one, never none.
     */
    async installCertificate(siteId: string, certificate: SiteCertificate, signal: AbortSignal) {
      checkCertificate(siteId, certificate)
      signal.throwIfAborted()
      const stack = await host.serving()
      await host.siteLocked(siteId, async () => {
        const site = await recorded(siteId)
        // Not final: the job installing it may run before the site's provisioning has laid it out.
        if (!site) throw new Error(`Site ${siteId} is not on this node (yet): it may still be provisioning`)
        const { state, spec, paths } = site
        const { fingerprint } = certificate
        const files = await writeCertificateFiles(layout, paths, certificate, signal)
        const block = host.blockOf(spec, paths, stack, { ...state, certificate: fingerprint })
        // Refused (a key that is not the certificate's, say), the block names what it did: the new files go,
        // unless they are the ones it names.
        await putBlock(stack, paths, block, signal, async () => {
          if (fingerprint !== state.certificate)
            for (const file of [files.chain, files.key]) await rm(file, { force: true })
        })
        await record(paths, state, fingerprint, signal)
        await removeCertificateFiles(paths.tls, fingerprint)
      })
    },

    /** The block first, then the state, then the certificate's files. */
    async removeCertificate(siteId: string, signal: AbortSignal) {
      checkCertificateSiteId(siteId)
      signal.throwIfAborted()
      const stack = await host.serving()
      await host.siteLocked(siteId, async () => {
        const site = await recorded(siteId)
        if (site) {
          const { state, spec, paths } = site
          // Rewritten even when the state names no certificate: a run stopped between writing the block and the
          // state of an installation left a block naming files about to go.
          await putBlock(
            stack,
            paths,
            host.blockOf(spec, paths, stack, { ...state, certificate: null }),
            signal,
          )
          if (state.certificate !== null) await record(paths, state, null, signal)
        }
        await removeCertificateFiles(join(layout.tls, siteId), null)
      })
    },
  }
}
