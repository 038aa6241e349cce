// Work inside a site (files, SFTP, commands) needs it running: each other state refused with its own code.

import { expect, test } from 'bun:test'
import { Problem } from '../../core/index.ts'
import { requireRunningSite, type SiteRef } from './contract.ts'

const site = (status: SiteRef['status']): SiteRef => ({
  id: 'site_01JDQ3V6Y4T1ZK0M2N5P7R9SA1',
  customerId: 'cus_01JDQ3V6Y4T1ZK0M2N5P7R9SAA',
  status,
  domain: 'shop.example.com',
  handle: 'shop',
  nodeId: 'nod_01JDQ3V6Y4T1ZK0M2N5P7R9SAB',
  type: 'wordpress',
  createdAt: '2026-01-01T00:00:00.000Z',
})

const refusal = (status: SiteRef['status']) => {
  try {
    requireRunningSite(site(status))
    return null
  } catch (error) {
    return error as Problem
  }
}

test('an active site may be worked in', () => {
  expect(refusal('active')).toBeNull()
})

test('a suspended site is 409 site_suspended', () => {
  expect(refusal('suspended')).toMatchObject({ status: 409, code: 'site_suspended' })
})

test('a site provisioning, failed or being deleted is 409 site_not_ready, saying which', () => {
  for (const status of ['provisioning', 'failed', 'deleting'] as const) {
    const problem = refusal(status)
    expect(problem).toBeInstanceOf(Problem)
    expect(problem).toMatchObject({ status: 409, code: 'site_not_ready', extensions: { siteStatus: status } })
  }
})
