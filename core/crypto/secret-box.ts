// Secrets the panel must use again later (webhook signing secrets), kept encrypted at rest: a copy of the store
// alone does not let anyone sign as the panel.

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/** Seals secrets for storage and opens them again. */
export interface SecretBox {
  /** `v1.<iv>.<ciphertext+tag>`, base64url; a fresh IV each time. */
  seal(plain: string): string
  /** The plain secret; throws when the sealed text was altered or sealed under another panel secret. */
  open(sealed: string): string
}

/** A box keyed by the panel secret (AES-256-GCM, key from HKDF-SHA-256 with a purpose label). */
export function createSecretBox(panelSecret: string, purpose = 'plinth secrets at rest v1'): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', panelSecret, Buffer.alloc(0), purpose, 32))
  return {
    seal(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}`
    },
    open(sealed) {
      const [version, iv, body] = sealed.split('.')
      if (version !== 'v1' || !iv || !body) throw new Error('Not a sealed secret')
      const bytes = Buffer.from(body, 'base64url')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(bytes.subarray(bytes.length - 16))
      return Buffer.concat([
        decipher.update(bytes.subarray(0, bytes.length - 16)),
        decipher.final(),
      ]).toString('utf8')
    },
  }
}
