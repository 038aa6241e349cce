// Standard Webhooks signing, checked by the `standardwebhooks` library and a node:crypto vector.

import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { generateSecret, secretPrefix, sign, signedHeaders } from './signing.ts'

const now = () => Math.floor(Date.now() / 1000)
const body = JSON.stringify({
  id: 'evt_01J9Z3',
  type: 'site.created',
  timestamp: '2024-01-01T00:00:00Z',
  data: { name: 'é ✓' },
})

describe('sign', () => {
  test('matches the Standard Webhooks reference vector', () => {
    // The Standard Webhooks specification's published test vector (the same one its reference libraries test).
    expect(
      sign(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  test('is base64 HMAC-SHA256 keyed with the decoded secret over "id.timestamp.body"', () => {
    const key = Buffer.alloc(32, 7)
    const secret = `whsec_${key.toString('base64')}`
    const expected = createHmac('sha256', key).update(`evt_1.1700000000.${body}`, 'utf8').digest('base64')
    expect(sign(secret, 'evt_1', 1700000000, body)).toBe(`v1,${expected}`)
  })

  test('agrees with the library signing the same message', () => {
    const secret = generateSecret()
    const at = new Date(1_700_000_000_000)
    expect(sign(secret, 'evt_2', 1_700_000_000, body)).toBe(new Webhook(secret).sign('evt_2', at, body))
  })

  test('a secret without the whsec_ prefix is refused', () => {
    expect(() => sign('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'evt_1', 1, body)).toThrow('whsec_')
  })
})

describe('signedHeaders', () => {
  test('the library verifies a signed message and answers its payload', () => {
    const secret = generateSecret()
    const headers = signedHeaders([secret], 'evt_01J9Z3', now(), body)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
  })

  test('carries the id and the timestamp as given', () => {
    const headers = signedHeaders([generateSecret()], 'evt_01J9Z3', 1700000000, body)
    expect(headers['webhook-id']).toBe('evt_01J9Z3')
    expect(headers['webhook-timestamp']).toBe('1700000000')
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
  })

  test('two secrets give two space-separated signatures, each accepted on its own', () => {
    const [oldSecret, newSecret] = [generateSecret(), generateSecret()]
    const headers = signedHeaders([oldSecret, newSecret], 'evt_3', now(), body)
    const signatures = (headers['webhook-signature'] ?? '').split(' ')
    expect(signatures).toHaveLength(2)
    for (const signature of signatures) expect(signature).toStartWith('v1,')
    expect(signatures[0]).not.toBe(signatures[1])

    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow()
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow()
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow()
    // Each signature alone is accepted by the receiver holding its secret.
    expect(() =>
      new Webhook(oldSecret).verify(body, { ...headers, 'webhook-signature': signatures[0] ?? '' }),
    ).not.toThrow()
    expect(() =>
      new Webhook(newSecret).verify(body, { ...headers, 'webhook-signature': signatures[1] ?? '' }),
    ).not.toThrow()
  })

  test('a tampered body, id or timestamp is refused by the library', () => {
    const secret = generateSecret()
    const timestamp = now()
    const headers = signedHeaders([secret], 'evt_4', timestamp, body)
    const receiver = new Webhook(secret)
    expect(() => receiver.verify(body, headers)).not.toThrow()

    expect(() => receiver.verify(body.replace('site.created', 'site.deleted'), headers)).toThrow(
      'No matching signature found',
    )
    expect(() => receiver.verify(`${body} `, headers)).toThrow('No matching signature found')
    expect(() => receiver.verify(body, { ...headers, 'webhook-id': 'evt_5' })).toThrow(
      'No matching signature found',
    )
    expect(() => receiver.verify(body, { ...headers, 'webhook-timestamp': String(timestamp - 1) })).toThrow(
      'No matching signature found',
    )
  })

  test('a message signed with another secret is refused', () => {
    const headers = signedHeaders([generateSecret()], 'evt_6', now(), body)
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow('No matching signature found')
  })
})

describe('generateSecret', () => {
  test('is whsec_ followed by the base64 of 32 bytes', () => {
    const secret = generateSecret()
    expect(secret).toStartWith(secretPrefix)
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const key = Buffer.from(secret.slice(secretPrefix.length), 'base64')
    expect(key).toHaveLength(32)
    expect(key.toString('base64')).toBe(secret.slice(secretPrefix.length))
  })

  test('gives a different secret every time', () => {
    const secrets = new Set(Array.from({ length: 1000 }, generateSecret))
    expect(secrets.size).toBe(1000)
  })

  test('is accepted as a key by the library', () => {
    expect(() => new Webhook(generateSecret())).not.toThrow()
  })
})
