// The problem object as RFC 9457 defines it: extensions add members, never replace the standard ones.

import { describe, expect, test } from 'bun:test'
import { kernelProblems } from './kernel-problems.ts'
import { Problem } from './problem.ts'

describe('Problem', () => {
  test('keeps the HTTP status in `status` whatever extensions it carries', async () => {
    const problem = new Problem(kernelProblems.not_found, { extensions: { currentStatus: 'suspended' } })
    const body = (await problem.toResponse('req_1').json()) as Record<string, unknown>
    expect(body).toMatchObject({
      status: 404,
      currentStatus: 'suspended',
      type: 'about:blank',
      requestId: 'req_1',
    })
  })

  test('refuses an extension named like a standard member, so none can be overwritten (it once answered "status": "suspended")', () => {
    for (const name of ['type', 'title', 'status', 'detail', 'instance', 'code', 'errors', 'requestId']) {
      expect(() => new Problem(kernelProblems.not_found, { extensions: { [name]: 'x' } })).toThrow(
        /would replace a standard member/,
      )
    }
  })
})
