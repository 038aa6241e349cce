import { describe, expect, test } from 'bun:test'
import { createSecretBox } from './secret-box.ts'

describe('secret box', () => {
  const box = createSecretBox('a-panel-secret-a-panel-secret-a-panel')
  test('opens what it sealed, with a fresh ciphertext each time', () => {
    const first = box.seal('whsec_abc')
    expect(box.open(first)).toBe('whsec_abc')
    expect(box.seal('whsec_abc')).not.toBe(first)
    expect(first).not.toContain('abc')
  })
  test('refuses altered text and text sealed under another secret', () => {
    const sealed = box.seal('whsec_abc')
    // Flip one character in the middle of the ciphertext: the authentication tag must catch it.
    const at = sealed.lastIndexOf('.') + 3
    const altered = `${sealed.slice(0, at)}${sealed[at] === 'A' ? 'B' : 'A'}${sealed.slice(at + 1)}`
    expect(() => box.open(altered)).toThrow()
    expect(() => createSecretBox('another-secret-another-secret-another').open(sealed)).toThrow()
    expect(() => box.open('plain')).toThrow()
  })
})
