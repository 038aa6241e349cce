// The problem object as RFC 9457 defines it: extensions add members, never replace the standard ones.

import { describe, expect, test } from 'bun:test'
import { kernelProblems } from './kernel-problems.ts'
import { Problem } from './problem.ts'
import { defineProblems, limitReached } from './problem-code.ts'

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

  test('is titled with its status’s reason phrase (412, 416, 426 and 502 were "Client Error")', () => {
    const problems = defineProblems({
      stale: { status: 412, detail: 'x', description: 'x' },
      range: { status: 416, detail: 'x', description: 'x' },
      socket: { status: 426, detail: 'x', description: 'x' },
      upstream: { status: 502, detail: 'x', description: 'x' },
    })
    expect(Object.values(problems).map((ref) => new Problem(ref).toJSON().title)).toEqual([
      'Precondition Failed',
      'Range Not Satisfiable',
      'Upgrade Required',
      'Bad Gateway',
    ])
  })

  test('codes may only use registered error statuses, so no title is ever a generic "Client Error"', () => {
    expect(() => defineProblems({ odd: { status: 499, detail: 'x', description: 'x' } })).toThrow(
      /not a registered HTTP error status/,
    )
    expect(() => defineProblems({ fine: { status: 200, detail: 'x', description: 'x' } })).toThrow()
  })
})

describe('limitReached', () => {
  test('words a metric’s refusal past its limit: 422, the items and the metric named', () => {
    const { dns_zone_limit_reached: refusal } = defineProblems({
      dns_zone_limit_reached: limitReached('dnsZones', 'DNS zones'),
    })
    expect(refusal).toMatchObject({ code: 'dns_zone_limit_reached', status: 422 })
    expect(refusal.detail).toBe('The customer already has as many DNS zones as its limits allow.')
    expect(refusal.description).toContain('`dnsZones` limit')
  })
})
