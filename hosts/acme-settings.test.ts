// The standard installation's ACME settings: where certificates are ordered (Let's Encrypt unless
// ACME_DIRECTORY_URL says otherwise, nowhere with `off`), the account's contact and an extra CA for the directory;
// a malformed one stops the start-up naming it.

import { expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { settingsFromEnv } from './settings.ts'
import { makeCertificate } from './testing/index.ts'

test('ACME_DIRECTORY_URL is Let’s Encrypt when unset, an https URL, or off', () => {
  expect(settingsFromEnv({}).acmeDirectoryUrl).toBe('https://acme-v02.api.letsencrypt.org/directory')
  expect(settingsFromEnv({ ACME_DIRECTORY_URL: 'https://localhost:14000/dir' }).acmeDirectoryUrl).toBe(
    'https://localhost:14000/dir',
  )
  expect(settingsFromEnv({ ACME_DIRECTORY_URL: 'off' }).acmeDirectoryUrl).toBeNull()
  for (const value of ['http://acme.example.com/dir', 'ftp://x/dir', 'acme.example.com', 'OFF'])
    expect(() => settingsFromEnv({ ACME_DIRECTORY_URL: value })).toThrow(
      /ACME_DIRECTORY_URL must be an https:\/\//,
    )
})

test('ACME_EMAIL is an address; ACME_CA_FILE a readable file of PEM certificates', async () => {
  expect(settingsFromEnv({ ACME_EMAIL: 'ops@example.com' }).acmeEmail).toBe('ops@example.com')
  expect(() => settingsFromEnv({ ACME_EMAIL: 'ops' })).toThrow(/ACME_EMAIL must be an email address/)
  const dir = mkdtempSync(join(tmpdir(), 'plinth-acme-settings-'))
  const ca = await makeCertificate({ subject: 'CN=Private ACME CA', ca: true })
  writeFileSync(join(dir, 'ca.pem'), ca.pem)
  writeFileSync(join(dir, 'empty.pem'), 'nothing here')
  expect(settingsFromEnv({ ACME_CA_FILE: join(dir, 'ca.pem') }).acmeCaPem).toBe(ca.pem)
  expect(() => settingsFromEnv({ ACME_CA_FILE: join(dir, 'empty.pem') })).toThrow(/holds no PEM certificate/)
  expect(() => settingsFromEnv({ ACME_CA_FILE: join(dir, 'missing.pem') })).toThrow(
    /ACME_CA_FILE: cannot read/,
  )
})
