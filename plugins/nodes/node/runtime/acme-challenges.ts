// ACME HTTP-01 answers on disk: `<dataDir>/acme/.well-known/acme-challenge/<token>`, holding exactly the key
// authorization, which every site's plain-HTTP server serves (see server-block.ts). Files only: no reload.

import { chmod, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { AcmeChallenge } from '../contract.ts'
import { NodeFailure } from '../contract.ts'
import { writeFileAtomic } from './atomic-files.ts'
import type { RuntimeLayout } from './layout.ts'
import { existingKind } from './site-home.ts'

// A token is base64url (RFC 8555 §8.3): one path segment, nothing to escape. A key authorization is the token, a
// dot and the account key's base64url thumbprint.
const tokenPattern = /^[A-Za-z0-9_-]{1,128}$/
const keyAuthorizationPattern = /^[A-Za-z0-9_.-]{1,512}$/

/** Refuses a token that could not name one file of the challenge directory: a {@link NodeFailure}. */
export function checkChallengeToken(token: unknown): asserts token is string {
  if (typeof token !== 'string' || !tokenPattern.test(token))
    throw new NodeFailure(
      'The node refuses the ACME challenge: its token is not 1 to 128 base64url characters',
      'unsafe_challenge',
    )
}

/** Refuses a challenge with a bad token or key authorization: a {@link NodeFailure} `unsafe_challenge`. */
export function checkChallenge(challenge: AcmeChallenge): void {
  checkChallengeToken(challenge?.token)
  const { keyAuthorization } = challenge
  if (typeof keyAuthorization !== 'string' || !keyAuthorizationPattern.test(keyAuthorization))
    throw new NodeFailure(
      `The node refuses the ACME challenge ${challenge.token}: its key authorization is not 1 to 512 base64url characters and dots`,
      'unsafe_challenge',
    )
}

/** The file answering `token`. */
export const challengeFile = (layout: RuntimeLayout, token: string) => join(layout.acme.challenges, token)

/** Writes the answer (0644 in directories 0755: nginx's workers read it), replacing one for the same token. */
export async function putChallengeFile(
  layout: RuntimeLayout,
  challenge: AcmeChallenge,
  signal: AbortSignal,
): Promise<void> {
  checkChallenge(challenge)
  signal.throwIfAborted()
  for (const dir of [layout.acme.root, join(layout.acme.root, '.well-known'), layout.acme.challenges]) {
    await mkdir(dir, { recursive: true, mode: 0o755 })
    await existingKind(dir)
    await chmod(dir, 0o755)
  }
  await writeFileAtomic(challengeFile(layout, challenge.token), challenge.keyAuthorization, signal, 0o644)
}

/** Removes the answer to `token`; done when there is none. */
export async function removeChallengeFile(
  layout: RuntimeLayout,
  token: string,
  signal: AbortSignal,
): Promise<void> {
  checkChallengeToken(token)
  signal.throwIfAborted()
  await rm(challengeFile(layout, token), { force: true })
}
