// The installation's ACME account and a client signed in with it: one account per directory, its key made on
// first use and sealed in the store, so several instances (and restarts) order under one account.

import { rootCertificates } from 'node:tls'
import * as acme from 'acme-client'
import { nowIso, type PluginContext } from '../../../core/index.ts'
import { findAcmeAccount, keepAcmeAccount, recordAccountUrl } from '../repository.ts'
import type { AcmeSettings } from './acme-settings.ts'

let trustedCa: string | undefined

// acme-client repeats a request that found no server 5 times, waiting 5 s more each time (75 s in all) before it
// says so; the job's own attempts already repeat with backoff, so one quick repeat is enough here. A CA's
// `Retry-After` (rate limits, 503) is still waited for as it asks.
const settings = acme.axios.defaults as {
  acmeSettings?: { retryMaxAttempts: number; retryDefaultDelay: number }
}
if (settings.acmeSettings) {
  settings.acmeSettings.retryMaxAttempts = 1
  settings.acmeSettings.retryDefaultDelay = 1
}

/**
 * Trusts `settings.trustedCaPem` for the directory's HTTPS besides the system's roots. acme-client sends every
 * request through its one axios instance, so this holds for the process: one CA setting per installation.
 */
async function trust(settings: AcmeSettings): Promise<void> {
  if (!settings.trustedCaPem || trustedCa === settings.trustedCaPem) return
  const https = await import('node:https')
  acme.axios.defaults.httpsAgent = new https.Agent({ ca: [...rootCertificates, settings.trustedCaPem] })
  trustedCa = settings.trustedCaPem
}

/**
 * Throws, saying why, when the directory does not answer. acme-client loses the reason of a failed connection
 * (its retry handler fails on the missing response), so the common case, a CA out of reach, is told here.
 */
export async function probeDirectory(settings: AcmeSettings): Promise<void> {
  let response: Response
  try {
    response = await fetch(settings.directoryUrl, {
      signal: AbortSignal.timeout(15_000),
      ...(settings.trustedCaPem ? { tls: { ca: [...rootCertificates, settings.trustedCaPem] } } : {}),
    })
  } catch (error) {
    throw new Error(
      `The ACME directory ${settings.directoryUrl} could not be reached: ${(error as Error).message}`,
    )
  }
  await response.body?.cancel()
  if (!response.ok)
    throw new Error(`The ACME directory ${settings.directoryUrl} answered HTTP ${response.status}`)
}

/** A client of the directory, with the installation's account there (registered on first use). */
export async function acmeClientFor(context: PluginContext, settings: AcmeSettings): Promise<acme.Client> {
  await trust(settings)
  const { directoryUrl } = settings
  let account = await findAcmeAccount(context.db, directoryUrl)
  if (!account) {
    const key = (await acme.crypto.createPrivateEcdsaKey('P-256')).toString()
    account = await keepAcmeAccount(context.db, {
      directory_url: directoryUrl,
      key_sealed: context.secrets.seal(key),
      account_url: null,
      created_at: nowIso(),
    })
  }
  const client = new acme.Client({
    directoryUrl,
    accountKey: context.secrets.open(account.key_sealed),
    ...(account.account_url ? { accountUrl: account.account_url } : {}),
    backoffAttempts: 10,
    backoffMin: 1000,
    backoffMax: 10_000,
  })
  if (!account.account_url) {
    // Registering again with the same key answers the existing account: two first runs end with one.
    await client.createAccount({
      termsOfServiceAgreed: true,
      ...(settings.email ? { contact: [`mailto:${settings.email}`] } : {}),
    })
    await recordAccountUrl(context.db, directoryUrl, client.getAccountUrl())
  }
  return client
}
