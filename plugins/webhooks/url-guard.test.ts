// The SSRF guard alone: host normalisation, non-public ranges, URL form, and DNS answers judged.

import { describe, expect, test } from 'bun:test'
import {
  allowedHostSet,
  checkWebhookUrl,
  type HostResolver,
  maxUrlLength,
  nonPublicRange,
  normaliseHost,
  parseWebhookUrl,
  type ResolvedAddress,
  systemResolver,
  type TargetCheck,
  type UrlPolicy,
  type UrlRefusalCode,
  type WebhookTarget,
} from './url-guard.ts'

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 })
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 })

/** A resolver that answers from a table and records every name it was asked; unknown names throw ENOTFOUND. */
function fakeResolver(table: Record<string, readonly ResolvedAddress[] | Error>): HostResolver & {
  asked: string[]
} {
  const asked: string[] = []
  const resolve = async (hostname: string) => {
    asked.push(hostname)
    const answer = table[hostname]
    if (answer instanceof Error) throw answer
    if (answer === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return answer
  }
  return Object.assign(resolve, { asked })
}

function policy(table: Record<string, readonly ResolvedAddress[] | Error> = {}, allowed: string[] = []) {
  const resolve = fakeResolver(table)
  return { allowedHosts: allowedHostSet(allowed), resolve } satisfies UrlPolicy
}

function expectTarget(check: TargetCheck): WebhookTarget {
  if (!check.ok) throw new Error(`expected the URL to pass, it was refused: ${JSON.stringify(check.refusal)}`)
  return check.target
}

function expectRefusal(
  check: TargetCheck | ReturnType<typeof parseWebhookUrl>,
  code: UrlRefusalCode,
): string {
  if (check.ok) throw new Error(`expected a refusal with ${code}, the URL passed`)
  expect(check.refusal.code).toBe(code)
  expect(check.refusal.message.length).toBeGreaterThan(0)
  return check.refusal.message
}

describe('normaliseHost', () => {
  test.each([
    ['Example.COM', 'example.com'],
    ['LOCALHOST', 'localhost'],
    ['example.com.', 'example.com'],
    ['  example.com  ', 'example.com'],
    ['[::1]', '::1'],
    ['[2001:DB8::1]', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['127.0.0.1.', '127.0.0.1'],
  ])('%p is compared as %p', (host, expected) => {
    expect(normaliseHost(host)).toBe(expected)
  })

  test.each([
    ['0177.0.0.1', 'octal'],
    ['2130706433', 'a single decimal number'],
    ['0x7f000001', 'a single hexadecimal number'],
    ['017700000001', 'a single octal number'],
    ['0x7f.1', 'hexadecimal with a 24-bit tail'],
    ['127.1', 'two parts'],
    ['127.0.1', 'three parts'],
    ['::ffff:127.0.0.1', 'IPv4-mapped IPv6 in dotted form'],
    ['::ffff:7f00:1', 'IPv4-mapped IPv6 in hexadecimal form'],
    ['[::FFFF:127.0.0.1]', 'IPv4-mapped IPv6 in brackets and capitals'],
  ])('%p (%s) is 127.0.0.1', (host) => {
    expect(normaliseHost(host)).toBe('127.0.0.1')
  })

  test('a name that only looks numeric in part stays a name', () => {
    expect(normaliseHost('127.0.0.1.example.com')).toBe('127.0.0.1.example.com')
    expect(normaliseHost('0x7f.example')).toBe('0x7f.example')
  })

  test('the allowed hosts are normalised the same way and blanks are dropped', () => {
    expect([...allowedHostSet(['LOCALHOST', '0177.0.0.1', '[::1]', 'hooks.internal.', ' '])]).toEqual([
      'localhost',
      '127.0.0.1',
      '::1',
      'hooks.internal',
    ])
  })
})

describe('nonPublicRange', () => {
  test.each([
    // IPv4
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.0.1', 'linkLocal'],
    ['169.254.169.254', 'cloudMetadata'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    // IPv6
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['febf:ffff::1', 'linkLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['2002:7f00:1::1', '6to4'],
    ['2001::1', 'teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'deprecatedOrchid'],
    ['2001:20::1', 'orchid2'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['::ffff:0:a00:1', 'rfc6145'],
    ['100::1', 'discard'],
    ['5f00::1', 'segmentRouting'],
    ['::7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
    // IPv4-mapped IPv6 is judged as the IPv4 address it reaches.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloudMetadata'],
    ['::ffff:100.64.0.1', 'carrierGradeNat'],
    ['::ffff:0.0.0.0', 'unspecified'],
  ])('%p is %p', (address, range) => {
    expect(nonPublicRange(address)).toBe(range)
  })

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.32.0.1',
    '172.15.255.255',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
  ])('%p is public', (address) => {
    expect(nonPublicRange(address)).toBeNull()
  })

  test('something that is not an address is never public', () => {
    expect(nonPublicRange('example.com')).toBe('invalid')
    expect(nonPublicRange('')).toBe('invalid')
    expect(nonPublicRange('256.0.0.1')).toBe('invalid')
  })
})

describe('parseWebhookUrl', () => {
  const none = allowedHostSet([])
  const local = allowedHostSet(['127.0.0.1', 'localhost'])

  test('an https URL passes with its host normalised and nothing exempt', () => {
    const parsed = parseWebhookUrl('https://Hooks.Example.COM./in?x=1', none)
    if (!parsed.ok) throw new Error(parsed.refusal.message)
    expect(parsed.host).toBe('hooks.example.com')
    expect(parsed.exempt).toBe(false)
    expect(parsed.url.pathname).toBe('/in')
    expect(parsed.url.search).toBe('?x=1')
  })

  test('plain http is refused for a host that is not allowed', () => {
    expectRefusal(parseWebhookUrl('http://hooks.example.com/', none), 'webhook_url_not_https')
    expectRefusal(parseWebhookUrl('http://hooks.example.com/', local), 'webhook_url_not_https')
  })

  test.each([
    'ftp://hooks.example.com/',
    'ws://hooks.example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
  ])('the scheme of %p is refused as not https', (raw) => {
    expect(expectRefusal(parseWebhookUrl(raw, local), 'invalid_webhook_url')).toContain('https')
  })

  test.each(['not a url', '/relative/path', 'hooks.example.com/in', 'https://', 'https://exa mple.com/', ''])(
    '%p is not an absolute URL',
    (raw) => {
      expectRefusal(parseWebhookUrl(raw, none), 'invalid_webhook_url')
    },
  )

  test('a port out of range is not a URL', () => {
    expectRefusal(parseWebhookUrl('https://hooks.example.com:65536/', none), 'invalid_webhook_url')
  })

  test.each([
    'https://user@hooks.example.com/',
    'https://:secret@hooks.example.com/',
    'https://u:p@hooks.example.com/',
  ])('credentials in %p are refused', (raw) => {
    expect(expectRefusal(parseWebhookUrl(raw, none), 'invalid_webhook_url')).toContain('password')
  })

  test('port 0 is refused, however it is written', () => {
    expectRefusal(parseWebhookUrl('https://hooks.example.com:0/', none), 'invalid_webhook_url')
    expectRefusal(parseWebhookUrl('https://hooks.example.com:000/', none), 'invalid_webhook_url')
  })

  test('a URL of exactly the maximum length passes and one character more is refused', () => {
    const prefix = 'https://hooks.example.com/'
    const longest = prefix + 'a'.repeat(maxUrlLength - prefix.length)
    expect(longest.length).toBe(2048)
    expect(parseWebhookUrl(longest, none).ok).toBe(true)
    expect(expectRefusal(parseWebhookUrl(`${longest}a`, none), 'invalid_webhook_url')).toContain('2048')
  })

  test('the fragment is dropped, even an empty one', () => {
    const withFragment = parseWebhookUrl('https://hooks.example.com/in?x=1#section', none)
    const emptyFragment = parseWebhookUrl('https://hooks.example.com/in#', none)
    if (!withFragment.ok || !emptyFragment.ok) throw new Error('expected both URLs to pass')
    expect(withFragment.url.href).toBe('https://hooks.example.com/in?x=1')
    expect(emptyFragment.url.href).toBe('https://hooks.example.com/in')
  })

  test('an allowed host may use plain http, on any port', () => {
    for (const raw of [
      'http://127.0.0.1/',
      'http://127.0.0.1:8080/hook',
      'http://localhost:3000/',
      'http://LOCALHOST./',
    ]) {
      const parsed = parseWebhookUrl(raw, local)
      if (!parsed.ok) throw new Error(`${raw}: ${parsed.refusal.message}`)
      expect(parsed.exempt).toBe(true)
    }
  })

  test('no other loopback address passes for being loopback when only 127.0.0.1 and localhost are allowed', () => {
    for (const raw of [
      'http://127.0.0.2/',
      'http://[::1]/',
      'http://127.255.255.254/',
      'http://sub.localhost/',
    ]) {
      expectRefusal(parseWebhookUrl(raw, local), 'webhook_url_not_https')
    }
  })

  test('another notation of the allowed address 127.0.0.1 is that address, so it is allowed too', () => {
    // The URL standard (and so fetch) reads these as 127.0.0.1: the same address the operator listed, not another.
    for (const raw of [
      'http://0177.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://127.1/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
    ]) {
      const parsed = parseWebhookUrl(raw, local)
      if (!parsed.ok) throw new Error(`${raw}: ${parsed.refusal.message}`)
      expect(parsed.host).toBe('127.0.0.1')
      expect(parsed.exempt).toBe(true)
    }
  })

  test('an allowed IPv6 address matches in any notation, and only itself', () => {
    const v6Local = allowedHostSet(['[::1]'])
    expect(parseWebhookUrl('http://[::1]/', v6Local).ok).toBe(true)
    expect(parseWebhookUrl('http://[0:0:0:0:0:0:0:1]:9000/', v6Local).ok).toBe(true)
    expectRefusal(parseWebhookUrl('http://127.0.0.1/', v6Local), 'webhook_url_not_https')
  })
})

describe('checkWebhookUrl', () => {
  test('a name resolving only to public addresses passes, connecting to the first address answered', async () => {
    const p = policy({
      'hooks.example.com': [v4('93.184.215.14'), v6('2606:2800:21f:cb07:6820:80da:af6b:8b2c')],
    })
    const target = expectTarget(await checkWebhookUrl('https://Hooks.Example.com./in', p))
    expect(target).toMatchObject({
      host: 'hooks.example.com',
      address: '93.184.215.14',
      family: 4,
      exempt: false,
    })
    expect(target.url.href).toBe('https://hooks.example.com./in')
    expect(p.resolve.asked).toEqual(['hooks.example.com'])
  })

  test('a name resolving first to IPv6 connects over IPv6', async () => {
    const p = policy({ 'hooks.example.com': [v6('2606:4700:4700::1111'), v4('1.1.1.1')] })
    const target = expectTarget(await checkWebhookUrl('https://hooks.example.com/', p))
    expect(target).toMatchObject({ address: '2606:4700:4700::1111', family: 6 })
  })

  test('a name resolving to one public and one private address is refused, without naming the internal address', async () => {
    for (const answer of [
      [v4('8.8.8.8'), v4('10.0.0.5')],
      [v4('10.0.0.5'), v4('8.8.8.8')],
      [v6('2606:4700:4700::1111'), v6('fd00::5')],
    ]) {
      const p = policy({ 'rebind.example.com': answer })
      const message = expectRefusal(
        await checkWebhookUrl('https://rebind.example.com/', p),
        'webhook_address_not_public',
      )
      // The address would tell brand staff what the provider's internal names point at.
      expect(message).not.toMatch(/10\.0\.0\.5|fd00::5/)
      expect(message).toMatch(/a (private|unique local) address/)
    }
  })

  test.each([
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'cloud metadata'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['::ffff:192.168.0.1', 'private'],
    ['2001:db8::1', 'special-purpose'],
  ])('a name resolving to %p is refused as %s', async (address, words) => {
    const p = policy({ 'inside.example.com': [{ address, family: address.includes(':') ? 6 : 4 }] })
    const message = expectRefusal(
      await checkWebhookUrl('https://inside.example.com/', p),
      'webhook_address_not_public',
    )
    expect(message).toContain(words)
  })

  test.each([
    'https://127.0.0.1/',
    'https://0177.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://127.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://10.1.2.3/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::ffff:169.254.169.254]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
    'https://0/',
    'https://255.255.255.255/',
    'https://224.0.0.1/',
  ])('the literal %p is refused without asking DNS', async (raw) => {
    const p = policy()
    expectRefusal(await checkWebhookUrl(raw, p), 'webhook_address_not_public')
    expect(p.resolve.asked).toEqual([])
  })

  test('a public IP literal passes without asking DNS and is its own address', async () => {
    const p = policy()
    expect(expectTarget(await checkWebhookUrl('https://8.8.8.8/', p))).toMatchObject({
      host: '8.8.8.8',
      address: '8.8.8.8',
      family: 4,
    })
    expect(expectTarget(await checkWebhookUrl('https://[2606:4700:4700::1111]:8443/', p))).toMatchObject({
      host: '2606:4700:4700::1111',
      address: '2606:4700:4700::1111',
      family: 6,
    })
    expect(p.resolve.asked).toEqual([])
  })

  test('a name that resolves to nothing is unresolvable', async () => {
    const p = policy({ 'empty.example.com': [] })
    expect(
      expectRefusal(await checkWebhookUrl('https://empty.example.com/', p), 'webhook_host_unresolvable'),
    ).toContain('empty.example.com')
  })

  test('a name the resolver fails on (ENOTFOUND) is unresolvable, saying why', async () => {
    const message = expectRefusal(
      await checkWebhookUrl('https://missing.example.com/', policy()),
      'webhook_host_unresolvable',
    )
    expect(message).toContain('missing.example.com')
    expect(message).toContain('ENOTFOUND')
  })

  test('a resolver error without a code is unresolvable with its message', async () => {
    const p = policy({ 'flaky.example.com': new Error('resolver went away') })
    expect(
      expectRefusal(await checkWebhookUrl('https://flaky.example.com/', p), 'webhook_host_unresolvable'),
    ).toContain('resolver went away')
  })

  test('an exempt host may resolve to loopback and use plain http', async () => {
    const p = policy({ localhost: [v6('::1'), v4('127.0.0.1')] }, ['localhost'])
    const target = expectTarget(await checkWebhookUrl('http://localhost:3000/hook', p))
    expect(target).toMatchObject({ host: 'localhost', address: '::1', family: 6, exempt: true })
  })

  test('an exempt IP literal passes though it is loopback', async () => {
    const p = policy({}, ['127.0.0.1'])
    expect(expectTarget(await checkWebhookUrl('http://127.0.0.1:9000/', p))).toMatchObject({
      address: '127.0.0.1',
      family: 4,
      exempt: true,
    })
    expectRefusal(await checkWebhookUrl('https://127.0.0.2/', p), 'webhook_address_not_public')
    expectRefusal(await checkWebhookUrl('http://127.0.0.2/', p), 'webhook_url_not_https')
  })

  test('an exempt host that resolves to nothing is still unresolvable', async () => {
    const p = policy({ 'hooks.internal': [] }, ['hooks.internal'])
    expectRefusal(await checkWebhookUrl('http://hooks.internal/', p), 'webhook_host_unresolvable')
  })

  test('an IPv4-mapped answer is connected to as the IPv4 address that was judged', async () => {
    const p = policy({ 'mapped.example.com': [v6('::ffff:8.8.8.8')] })
    expect(expectTarget(await checkWebhookUrl('https://mapped.example.com/', p))).toMatchObject({
      address: '8.8.8.8',
      family: 4,
    })
    const mappedPrivate = policy({ 'mapped.example.com': [v6('::ffff:10.0.0.1')] })
    expectRefusal(
      await checkWebhookUrl('https://mapped.example.com/', mappedPrivate),
      'webhook_address_not_public',
    )
  })

  test('an IPv4-mapped literal of an allowed address connects to that address over IPv4', async () => {
    const p = policy({}, ['127.0.0.1'])
    expect(expectTarget(await checkWebhookUrl('http://[::ffff:127.0.0.1]:9000/', p))).toMatchObject({
      host: '127.0.0.1',
      address: '127.0.0.1',
      family: 4,
    })
  })

  test('a malformed URL is refused before DNS is asked', async () => {
    const p = policy()
    expectRefusal(await checkWebhookUrl('https://user:pw@hooks.example.com/', p), 'invalid_webhook_url')
    expectRefusal(await checkWebhookUrl('http://hooks.example.com/', p), 'webhook_url_not_https')
    expect(p.resolve.asked).toEqual([])
  })
})

describe('systemResolver', () => {
  test('answers an IP literal as itself', async () => {
    expect(await systemResolver('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }])
    expect(await systemResolver('::1')).toEqual([{ address: '::1', family: 6 }])
  })

  test('a name under .invalid (never in DNS) makes the check unresolvable', async () => {
    const p: UrlPolicy = { allowedHosts: allowedHostSet([]), resolve: systemResolver }
    expectRefusal(await checkWebhookUrl('https://no-such-host.invalid/', p), 'webhook_host_unresolvable')
  })
})

describe('answers the guard cannot trust', () => {
  test('a resolver answer that is not an address is refused, even for an exempt host', async () => {
    const policy = {
      allowedHosts: allowedHostSet(['hooks.internal']),
      resolve: async () => [{ address: 'not-an-ip', family: 4 as const }],
    }
    const check = await checkWebhookUrl('http://hooks.internal/x', policy)
    expect(check.ok ? null : check.refusal.code).toBe('webhook_host_unresolvable')
  })

  test('a URL that grows past 2,048 characters once encoded is refused', () => {
    const path = 'é'.repeat(1_000)
    const parsed = parseWebhookUrl(`https://hooks.example.com/${path}`, new Set())
    expect(parsed.ok ? null : parsed.refusal.code).toBe('invalid_webhook_url')
  })
})
