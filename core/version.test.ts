import { expect, test } from 'bun:test'
import packageJson from '../package.json'
import { kernelVersion } from './version.ts'

test('the kernel version is the package version', () => {
  expect(kernelVersion).toBe(packageJson.version)
})
