// The standard installation's billing setting: BILLING_CHECKOUT opens or closes customers' self-service checkout,
// and anything else stops the start-up.

import { expect, test } from 'bun:test'
import { settingsFromEnv } from './settings.ts'
import { standardPlugins } from './standard-plugins.ts'
import { createTestPanel, expectProblem, temporaryDataDir } from './testing/index.ts'

test('BILLING_CHECKOUT is open when unset, open or closed; anything else is refused naming the setting', () => {
  expect(settingsFromEnv({}).billingCheckout).toBe('open')
  expect(settingsFromEnv({ BILLING_CHECKOUT: 'open' }).billingCheckout).toBe('open')
  expect(settingsFromEnv({ BILLING_CHECKOUT: 'closed' }).billingCheckout).toBe('closed')
  for (const value of ['', 'Closed', 'off', 'false'])
    expect(() => settingsFromEnv({ BILLING_CHECKOUT: value })).toThrow(
      /BILLING_CHECKOUT must be "open" or "closed"/,
    )
})

test('BILLING_CHECKOUT=closed reaches the billing plugin: checkout answers 403 checkout_closed', async () => {
  const settings = settingsFromEnv({ BILLING_CHECKOUT: 'closed' })
  const tp = await createTestPanel({
    standard: false,
    plugins: standardPlugins({ ...settings, dataDir: temporaryDataDir(), webhookAllowedHosts: [] }),
  })
  try {
    const token = await tp.token()
    const customer = (await (
      await tp.request('POST', '/api/v1/customers', { token, body: { name: 'C' } })
    ).json()) as {
      id: string
    }
    const plan = (await (
      await tp.request('POST', '/api/v1/plans', { token, body: { name: 'P' } })
    ).json()) as {
      id: string
    }
    await expectProblem(
      await tp.request('POST', '/api/v1/checkout', {
        token,
        body: { customerId: customer.id, planId: plan.id },
      }),
      403,
      'checkout_closed',
    )
  } finally {
    await tp.panel.close()
  }
})
