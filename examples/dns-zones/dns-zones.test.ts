// The DNS zones plugin as a client meets it, mounted beside the standard plugins: every operation and refusal,
// who may use them, tenancy, idempotency, events and audit entries, the plan quota, the zone file (its content,
// ETag and 304, and BIND's own named-checkzone accepting it), and a deleted customer taking its zones with it.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { DnsRecord, DnsZone } from './contract.ts'
import { dnsZonesPlugin } from './index.ts'

let tp: TestPanel
let staff: string
let customerId: string
const scratch = mkdtempSync(join(tmpdir(), 'plinth-dns-'))

async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await tp.request(method, `/api/v1${path}`, { token: staff, ...options })
  const text = await response.text()
  const json = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null
  return { status: response.status, headers: response.headers, text, body: json as T }
}
/** Sends and expects `status`, answering the body. */
async function ok<T = Record<string, unknown>>(
  status: number,
  ...request: Parameters<typeof call>
): Promise<T> {
  const answer = await call<T>(...request)
  if (answer.status !== status)
    throw new Error(`${request[0]} ${request[1]}: ${answer.status} ${answer.text}`)
  return answer.body
}
const refused = async (...request: Parameters<typeof call>) =>
  tp.request(request[0], `/api/v1${request[1]}`, { token: staff, ...request[2] })

const newCustomer = async (name: string) =>
  (await ok<{ id: string }>(201, 'POST', '/customers', { body: { name } })).id
const newZone = (name: string, customer = customerId) =>
  ok<DnsZone>(201, 'POST', '/dns-zones', { body: { customerId: customer, name } })
const addRecord = (zone: DnsZone, body: Record<string, unknown>) =>
  ok<DnsRecord>(201, 'POST', `/dns-zones/${zone.id}/records`, { body })
const recordsOf = async (zone: DnsZone) =>
  (await ok<Page<DnsRecord>>(200, 'GET', `/dns-zones/${zone.id}/records?limit=100`)).items
const serialOf = async (zone: DnsZone) => (await ok<DnsZone>(200, 'GET', `/dns-zones/${zone.id}`)).serial
const outbox = (kind: string) =>
  tp.panel.store.db
    .withTables<{ event_outbox: { id: string; kind: string; payload: string } }>()
    .selectFrom('event_outbox')
    .select(['kind', 'payload'])
    .where('kind', 'like', kind)
    .orderBy('id')
    .execute()

beforeAll(async () => {
  tp = await createTestPanel({ plugins: [dnsZonesPlugin({ nameservers: ['ns1.dns.test', 'ns2.dns.test'] })] })
  staff = await tp.token()
  customerId = await newCustomer('Acme')
})
afterAll(async () => {
  await tp.panel.close()
  rmSync(scratch, { recursive: true, force: true })
})

describe('zones', () => {
  test('are created (201, Location, lower-cased), listed by customer, read and deleted with their records', async () => {
    const created = await call<DnsZone>('POST', '/dns-zones', { body: { customerId, name: 'Acme.Example' } })
    expect(created.status).toBe(201)
    const zone = created.body
    expect(created.headers.get('location')).toBe(`/api/v1/dns-zones/${zone.id}`)
    expect(zone).toMatchObject({ customerId, name: 'acme.example' })
    expect(zone.id).toMatch(/^dnsz_[0-9A-Z]{26}$/)
    expect(String(zone.serial)).toMatch(/^20\d{6}00$/)
    const other = await newCustomer('Other')
    await newZone('other.example', other)
    const listed = await ok<Page<DnsZone>>(200, 'GET', `/dns-zones?customerId=${customerId}`)
    expect(listed).toEqual({ items: [zone], nextCursor: null })
    expect(await ok(200, 'GET', `/dns-zones/${zone.id}`)).toEqual(zone)

    const record = await addRecord(zone, { name: 'www', type: 'A', content: '192.0.2.1' })
    await ok(204, 'DELETE', `/dns-zones/${zone.id}`)
    await expectProblem(await refused('GET', `/dns-zones/${zone.id}`), 404, 'not_found')
    await expectProblem(await refused('GET', `/dns-zones/${zone.id}/records/${record.id}`), 404, 'not_found')
    const audit = await ok<Page<{ action: string; customerId: string }>>(
      200,
      'GET',
      `/audit?subject=${zone.id}`,
    )
    expect(audit.items.map((entry) => entry.action)).toEqual(['dns_zone.delete', 'dns_zone.create'])
    expect(audit.items.every((entry) => entry.customerId === customerId)).toBe(true)
    const events = (await outbox('dns_zone.%')).filter((event) => event.payload.includes(zone.id))
    expect(events.map((event) => event.kind)).toEqual(['dns_zone.created', 'dns_zone.deleted'])
    expect(JSON.parse(events[0]?.payload ?? '{}')).toEqual(zone)
  })

  test('refuse a name that is no domain, at its field, and nothing is made', async () => {
    for (const name of ['example', 'example.com.', 'exa mple.com', '-x.example', 'example.123', 'a..example'])
      await expectFieldProblem(
        await refused('POST', '/dns-zones', { body: { customerId, name } }),
        422,
        'invalid_zone_name',
        'body.name',
      )
    await expectFieldProblem(
      await refused('POST', '/dns-zones', { body: { customerId: 'cus_nobody', name: 'x.example' } }),
      422,
      'unknown_customer',
      'body.customerId',
    )
    expect(
      (await ok<Page<DnsZone>>(200, 'GET', '/dns-zones?limit=100')).items.map((zone) => zone.name),
    ).not.toContain('x.example')
  })

  test('are unique in the installation, and none is inside or above another', async () => {
    const rival = await newCustomer('Rival')
    await newZone('taken.example', rival)
    for (const name of ['taken.example', 'TAKEN.example', 'shop.taken.example'])
      await expectFieldProblem(
        await refused('POST', '/dns-zones', { body: { customerId, name } }),
        409,
        'dns_zone_taken',
        'body.name',
      )
    await newZone('deep.shop.rival.example', rival)
    await expectFieldProblem(
      await refused('POST', '/dns-zones', { body: { customerId, name: 'rival.example' } }),
      409,
      'dns_zone_taken',
      'body.name',
    )
    // Names inside a zone are its records, whoever asks: the rival too.
    await expectFieldProblem(
      await refused('POST', '/dns-zones', { body: { customerId: rival, name: 'x.taken.example' } }),
      409,
      'dns_zone_taken',
      'body.name',
    )
    await newZone('beside-taken.example')
  })

  test('Idempotency-Key: a replay answers the first zone, another body with the key is refused', async () => {
    const headers = { 'idempotency-key': crypto.randomUUID() }
    const body = { customerId, name: 'replayed.example' }
    const first = await call<DnsZone>('POST', '/dns-zones', { body, headers })
    const again = await call<DnsZone>('POST', '/dns-zones', { body, headers })
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    await expectProblem(
      await refused('POST', '/dns-zones', { body: { ...body, name: 'other-replayed.example' }, headers }),
      422,
      'idempotency_key_reused',
    )
    const all = await ok<Page<DnsZone>>(200, 'GET', '/dns-zones?limit=100')
    expect(all.items.filter((zone) => zone.name.endsWith('replayed.example')).map((zone) => zone.id)).toEqual(
      [first.body.id],
    )
  })

  test('count against the plan’s dnsZones limit, refused past it with dns_zone_limit_reached', async () => {
    const limited = await newCustomer('Small')
    const plan = await ok<{ id: string }>(201, 'POST', '/plans', {
      body: { name: 'One zone', limits: { dnsZones: 1 } },
    })
    await ok(201, 'POST', '/subscriptions', { body: { customerId: limited, planId: plan.id } })
    const zone = await newZone('small.example', limited)
    const past = await expectProblem(
      await refused('POST', '/dns-zones', { body: { customerId: limited, name: 'second-small.example' } }),
      422,
      'dns_zone_limit_reached',
    )
    expect(past).toMatchObject({ metric: 'dnsZones', limit: 1, used: 1, requested: 1 })
    const usage = await ok<{ customers: { customerId: string; usage: Record<string, number> }[] }>(
      200,
      'GET',
      `/usage?customerId=${limited}`,
    )
    expect(JSON.stringify(usage)).toContain('"dnsZones":1')
    // Deleting the zone frees its place.
    await ok(204, 'DELETE', `/dns-zones/${zone.id}`)
    await newZone('second-small.example', limited)
  })
})

describe('records', () => {
  test('are added, listed by name and type, read, changed and deleted; each change raises the serial, audited and announced', async () => {
    const zone = await newZone('records.example')
    const created = await call<DnsRecord>('POST', `/dns-zones/${zone.id}/records`, {
      body: { name: 'WWW', type: 'AAAA', content: '2001:DB8::1', ttl: 300 },
    })
    expect(created.status).toBe(201)
    const record = created.body
    expect(created.headers.get('location')).toBe(`/api/v1/dns-zones/${zone.id}/records/${record.id}`)
    expect(record).toMatchObject({
      zoneId: zone.id,
      customerId,
      name: 'www',
      type: 'AAAA',
      content: '2001:db8::1',
      ttl: 300,
    })
    expect(record.id).toMatch(/^dnsr_[0-9A-Z]{26}$/)
    const mx = await addRecord(zone, { name: '@', type: 'MX', content: '10   Mail.Example.NET.' })
    expect(mx).toMatchObject({ content: '10 mail.example.net', ttl: 3600 })
    const afterAdding = await serialOf(zone)
    expect(afterAdding).toBeGreaterThan(zone.serial + 1)

    expect(await recordsOf(zone)).toEqual([record, mx])
    const byType = await ok<Page<DnsRecord>>(200, 'GET', `/dns-zones/${zone.id}/records?type=MX&name=@`)
    expect(byType.items).toEqual([mx])
    expect(await ok(200, 'GET', `/dns-zones/${zone.id}/records/${record.id}`)).toEqual(record)

    const changed = await ok<DnsRecord>(200, 'PATCH', `/dns-zones/${zone.id}/records/${record.id}`, {
      body: { content: '2001:db8::2' },
    })
    expect(changed).toMatchObject({ id: record.id, name: 'www', content: '2001:db8::2', ttl: 300 })
    const afterChange = await serialOf(zone)
    expect(afterChange).toBeGreaterThan(afterAdding)
    // The same again changes nothing: no serial, no audit entry, no event.
    await ok(200, 'PATCH', `/dns-zones/${zone.id}/records/${record.id}`, {
      body: { content: '2001:db8::2', ttl: 300 },
    })
    expect(await serialOf(zone)).toBe(afterChange)
    await ok(204, 'DELETE', `/dns-zones/${zone.id}/records/${record.id}`)
    expect(await serialOf(zone)).toBeGreaterThan(afterChange)
    expect(await recordsOf(zone)).toEqual([mx])

    const audit = await ok<Page<{ action: string; customerId: string }>>(
      200,
      'GET',
      `/audit?subject=${record.id}`,
    )
    expect(audit.items.map((entry) => entry.action)).toEqual([
      'dns_record.delete',
      'dns_record.update',
      'dns_record.create',
    ])
    expect(audit.items.every((entry) => entry.customerId === customerId)).toBe(true)
    const events = (await outbox('dns_record.%')).filter((event) => event.payload.includes(record.id))
    expect(events.map((event) => event.kind)).toEqual([
      'dns_record.created',
      'dns_record.updated',
      'dns_record.deleted',
    ])
    expect(JSON.parse(events[0]?.payload ?? '{}')).toEqual(record)
  })

  test('refuse content that does not suit the type, and bad names, each at its field, all in one answer', async () => {
    const zone = await newZone('checks.example')
    const before = zone.serial
    const bad: [string, string, string][] = [
      ['A', 'www', '192.0.2.256'],
      ['A', 'www', '192.0.2.01'],
      ['AAAA', 'www', 'fe80::1%eth0'],
      ['AAAA', 'www', '192.0.2.1'],
      ['CNAME', 'www', 'not a name'],
      ['CNAME', 'www', 'single'],
      ['MX', '@', 'mail.example.net'],
      ['MX', '@', '70000 mail.example.net'],
      ['MX', '@', '10 _mail.example.net'],
      ['TXT', '@', 'two\nlines'],
    ]
    for (const [type, name, content] of bad)
      await expectFieldProblem(
        await refused('POST', `/dns-zones/${zone.id}/records`, { body: { name, type, content } }),
        422,
        'invalid_record_content',
        'body.content',
      )
    for (const [type, name] of [
      ['A', 'www.checks.example.'],
      ['A', '_dmarc'],
      ['A', 'a..b'],
      ['A', 'shop.*'],
      ['TXT', '-x'],
      ['TXT', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(50)}`],
    ])
      await expectFieldProblem(
        await refused('POST', `/dns-zones/${zone.id}/records`, {
          body: { name, type, content: '192.0.2.1' },
        }),
        422,
        'invalid_record_name',
        'body.name',
      )
    const both = await expectProblem(
      await refused('POST', `/dns-zones/${zone.id}/records`, {
        body: { name: 'a b', type: 'A', content: 'x' },
      }),
      422,
      'validation_failed',
    )
    expect(both.errors?.map((error) => [error.location, error.code])).toEqual([
      ['body.name', 'invalid_record_name'],
      ['body.content', 'invalid_record_content'],
    ])
    for (const ttl of [59, 86401, 1.5])
      await expectProblem(
        await refused('POST', `/dns-zones/${zone.id}/records`, {
          body: { name: 'x', type: 'A', content: '192.0.2.1', ttl },
        }),
        422,
        'validation_failed',
      )
    // What is allowed where: underscores and wildcards for TXT, wildcards for A, nothing stored by the refusals.
    await addRecord(zone, { name: '_dmarc', type: 'TXT', content: 'v=DMARC1; p=none' })
    await addRecord(zone, { name: '*.shop', type: 'A', content: '192.0.2.1' })
    expect((await recordsOf(zone)).map((record) => record.name)).toEqual(['_dmarc', '*.shop'])
    expect(await serialOf(zone)).toBeGreaterThan(before + 1)
  })

  test('a CNAME stands alone: not at the apex, not beside other records, and none beside it', async () => {
    const zone = await newZone('cname.example')
    const a = await addRecord(zone, { name: 'www', type: 'A', content: '192.0.2.1' })
    const cname = await addRecord(zone, { name: 'shop', type: 'CNAME', content: 'shops.example.net' })
    const serial = await serialOf(zone)
    const attempts: [string, Record<string, unknown>][] = [
      ['POST', { name: '@', type: 'CNAME', content: 'elsewhere.example.net' }],
      ['POST', { name: 'www', type: 'CNAME', content: 'elsewhere.example.net' }],
      ['POST', { name: 'shop', type: 'TXT', content: 'hello' }],
      ['POST', { name: 'shop', type: 'CNAME', content: 'other.example.net' }],
    ]
    for (const [method, body] of attempts)
      await expectProblem(
        await refused(method, `/dns-zones/${zone.id}/records`, { body }),
        409,
        'cname_conflict',
      )
    // Moving a record onto the CNAME's name, or the CNAME onto the apex, is refused the same.
    await expectProblem(
      await refused('PATCH', `/dns-zones/${zone.id}/records/${a.id}`, { body: { name: 'shop' } }),
      409,
      'cname_conflict',
    )
    await expectProblem(
      await refused('PATCH', `/dns-zones/${zone.id}/records/${cname.id}`, { body: { name: '@' } }),
      409,
      'cname_conflict',
    )
    await expectProblem(
      await refused('POST', `/dns-zones/${zone.id}/records`, {
        body: { name: 'www', type: 'A', content: '192.0.2.1' },
      }),
      409,
      'duplicate_record',
    )
    expect(await recordsOf(zone)).toEqual([a, cname])
    expect(await serialOf(zone)).toBe(serial)
  })
})

describe('the zone file', () => {
  test('is text/plain with the SOA, NS and every record, an ETag, 304 while unchanged, and BIND accepts it', async () => {
    const zone = await newZone('export.example')
    const records: Record<string, unknown>[] = [
      { name: 'www', type: 'CNAME', content: 'export.example.' },
      { name: '@', type: 'A', content: '192.0.2.1' },
      { name: '@', type: 'AAAA', content: '2001:db8::1', ttl: 600 },
      { name: '@', type: 'MX', content: '10 mail.export.example' },
      { name: '@', type: 'MX', content: '20 mx.elsewhere.example' },
      { name: 'mail', type: 'A', content: '192.0.2.25' },
      { name: '*.dev', type: 'A', content: '192.0.2.9', ttl: 60 },
      { name: '_dmarc', type: 'TXT', content: 'v=DMARC1; p=reject; rua="mailto:d@export.example" \\ é' },
      { name: '@', type: 'TXT', content: 'x'.repeat(300) },
    ]
    for (const body of records) await addRecord(zone, body)
    const serial = await serialOf(zone)
    const file = await call('GET', `/dns-zones/${zone.id}/zone-file`)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="export.example.zone"')
    expect(file.text).toBe(
      [
        `; export.example, serial ${serial}`,
        '$ORIGIN export.example.',
        '$TTL 3600',
        `@ IN SOA ns1.dns.test. hostmaster.example.net. ${serial} 3600 900 1209600 300`,
        '@ IN NS ns1.dns.test.',
        '@ IN NS ns2.dns.test.',
        '@ 3600 IN A 192.0.2.1',
        '@ 600 IN AAAA 2001:db8::1',
        '@ 3600 IN MX 10 mail.export.example.',
        '@ 3600 IN MX 20 mx.elsewhere.example.',
        `@ 3600 IN TXT "${'x'.repeat(255)}" "${'x'.repeat(45)}"`,
        '*.dev 60 IN A 192.0.2.9',
        '_dmarc 3600 IN TXT "v=DMARC1; p=reject; rua=\\"mailto:d@export.example\\" \\\\ \\195\\169"',
        'mail 3600 IN A 192.0.2.25',
        'www 3600 IN CNAME export.example.',
        '',
      ].join('\n'),
    )

    const path = join(scratch, 'export.example.zone')
    writeFileSync(path, file.text)
    // `-i local`: integrity checks of names inside the zone only; names outside it would be looked up on the network.
    const checked = Bun.spawnSync(['named-checkzone', '-i', 'local', 'export.example', path])
    const said = `${checked.stdout.toString()}${checked.stderr.toString()}`
    expect({ exitCode: checked.exitCode, said }).toEqual({
      exitCode: 0,
      said: `zone export.example/IN: loaded serial ${serial}\nOK\n`,
    })

    const etag = file.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[^"]+"$/)
    const again = await call('GET', `/dns-zones/${zone.id}/zone-file`, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(again.text).toBe('')
    await addRecord(zone, { name: 'new', type: 'A', content: '192.0.2.2' })
    const changed = await call('GET', `/dns-zones/${zone.id}/zone-file`, {
      headers: { 'if-none-match': etag },
    })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect(changed.text).toContain(`serial ${await serialOf(zone)}`)
  })
})

describe('who may', () => {
  test('another customer’s token sees none of the zone: 404 for the zone, its records and its file', async () => {
    const zone = await newZone('private.example')
    const record = await addRecord(zone, { name: 'www', type: 'A', content: '192.0.2.1' })
    const other = await newCustomer('Outsider')
    const outsider = await tp.token({ customerId: other })
    await newZone('outsider.example', other)
    const listed = await ok<Page<DnsZone>>(200, 'GET', '/dns-zones?limit=100', { token: outsider })
    expect(listed.items.map((item) => item.name)).toEqual(['outsider.example'])
    const paths: [string, string, unknown?][] = [
      ['GET', `/dns-zones/${zone.id}`],
      ['GET', `/dns-zones/${zone.id}/records`],
      ['GET', `/dns-zones/${zone.id}/records/${record.id}`],
      ['GET', `/dns-zones/${zone.id}/zone-file`],
      ['POST', `/dns-zones/${zone.id}/records`, { name: 'x', type: 'A', content: '192.0.2.1' }],
      ['PATCH', `/dns-zones/${zone.id}/records/${record.id}`, { ttl: 60 }],
      ['DELETE', `/dns-zones/${zone.id}/records/${record.id}`],
      ['DELETE', `/dns-zones/${zone.id}`],
    ]
    for (const [method, path, body] of paths)
      await expectProblem(await refused(method, path, { token: outsider, body }), 404, 'not_found')
    await expectFieldProblem(
      await refused('POST', '/dns-zones', { token: outsider, body: { customerId, name: 'mine.example' } }),
      422,
      'unknown_customer',
      'body.customerId',
    )
    // A record of one zone is not found under another.
    const own = await newZone('own.example')
    await expectProblem(await refused('GET', `/dns-zones/${own.id}/records/${record.id}`), 404, 'not_found')
    expect(await recordsOf(zone)).toEqual([record])
  })

  test('owners, admins and developers hold dns:read and dns:manage; a billing member neither', async () => {
    const roles = tp.panel.catalogue.roles
    for (const role of ['owner', 'admin', 'developer'])
      expect(roles.find((entry) => entry.role === role)?.scopes).toEqual(
        expect.arrayContaining(['dns:read', 'dns:manage']),
      )
    expect(roles.find((entry) => entry.role === 'billing')?.scopes).not.toContain('dns:read')

    const team = await newCustomer('Team')
    const zone = await newZone('team.example', team)
    const tokens: Record<string, string> = {}
    for (const role of ['developer', 'billing']) {
      const user = await createTestUser(tp.panel.store.db, { email: `${role}@team.example`, staffRole: null })
      await ok(201, 'POST', `/customers/${team}/members`, { body: { email: user.email, role } })
      tokens[role] = await tp.token({ user, scopes: ['*'] })
    }
    const developer = tokens.developer ?? ''
    await ok(201, 'POST', `/dns-zones/${zone.id}/records`, {
      token: developer,
      body: { name: 'www', type: 'A', content: '192.0.2.1' },
    })
    await ok(201, 'POST', '/dns-zones', {
      token: developer,
      body: { customerId: team, name: 'team-dev.example' },
    })
    const billing = tokens.billing ?? ''
    for (const [method, path, body] of [
      ['GET', `/dns-zones/${zone.id}/zone-file`],
      ['POST', `/dns-zones/${zone.id}/records`, { name: 'x', type: 'A', content: '192.0.2.1' }],
      ['DELETE', `/dns-zones/${zone.id}`],
    ] as [string, string, unknown?][]) {
      const answer = await expectProblem(
        await refused(method, path, { token: billing, body }),
        403,
        'insufficient_scope',
      )
      expect(answer.scope).toBe(method === 'GET' ? 'dns:read' : 'dns:manage')
    }
    // A token narrowed to reading reads, and changes nothing.
    const reader = await tp.token({ scopes: ['dns:read'] })
    await ok(200, 'GET', `/dns-zones/${zone.id}/zone-file`, { token: reader })
    await expectProblem(
      await refused('DELETE', `/dns-zones/${zone.id}`, { token: reader }),
      403,
      'insufficient_scope',
    )
    expect((await recordsOf(zone)).length).toBe(1)
  })

  test('the document names the operations, and capabilities the name servers', async () => {
    const document = tp.panel.document as { paths: Record<string, Record<string, { operationId: string }>> }
    const operations = Object.values(document.paths)
      .flatMap((path) => Object.values(path).map((operation) => operation.operationId))
      .filter((id) => /Dns/.test(id))
    expect(operations.toSorted()).toEqual([
      'createDnsRecord',
      'createDnsZone',
      'deleteDnsRecord',
      'deleteDnsZone',
      'exportDnsZone',
      'getDnsRecord',
      'getDnsZone',
      'listDnsRecords',
      'listDnsZones',
      'updateDnsRecord',
    ])
    const capabilities = await ok<{ installation: { plugins: { name: string; capabilities: unknown }[] } }>(
      200,
      'GET',
      '/capabilities',
    )
    const ours = capabilities.installation.plugins.find((plugin) => plugin.name === 'dns-zones')
    expect(ours?.capabilities).toEqual({ nameservers: ['ns1.dns.test', 'ns2.dns.test'] })
  })
})

describe('a deleted customer', () => {
  test('takes no new zone while it goes, then its zones and records go with it, audited, announced, uncounted', async () => {
    // A panel of its own, whose jobs run only once it is started.
    const own = await createTestPanel({ plugins: [dnsZonesPlugin()], jobs: { pollIntervalMs: 10 } })
    const token = await own.token()
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await own.request(method, `/api/v1${path}`, { token, body })
      return {
        status: response.status,
        response,
        body: (await response.json().catch(() => null)) as Record<string, unknown>,
      }
    }
    try {
      const customer = (await send('POST', '/customers', { name: 'Leaving' })).body.id as string
      const zone = (await send('POST', '/dns-zones', { customerId: customer, name: 'leaving.example' })).body
      const record = { name: 'www', type: 'A', content: '192.0.2.1' }
      expect((await send('POST', `/dns-zones/${zone.id}/records`, record)).status).toBe(201)
      expect((await send('DELETE', `/customers/${customer}`)).status).toBe(202)
      const late = await own.request('POST', '/api/v1/dns-zones', {
        token,
        body: { customerId: customer, name: 'late.example' },
      })
      await expectProblem(late, 409, 'customer_deleting')

      own.panel.start()
      await waitFor(
        'the customer to be gone',
        async () => (await send('GET', `/customers/${customer}`)).status === 404,
      )
      const db = own.panel.store.db.withTables<{
        dns_zones: DnsZone
        dns_records: DnsRecord
        audit_entries: { action: string; subject_id: string }
        event_outbox: { kind: string; payload: string }
      }>()
      expect(await db.selectFrom('dns_zones').selectAll().execute()).toEqual([])
      expect(await db.selectFrom('dns_records').selectAll().execute()).toEqual([])
      const audited = await db
        .selectFrom('audit_entries')
        .select('action')
        .where('subject_id', '=', String(zone.id))
        .execute()
      expect(audited.map((entry) => entry.action)).toEqual(['dns_zone.create', 'dns_zone.delete'])
      const events = await db
        .selectFrom('event_outbox')
        .select('payload')
        .where('kind', '=', 'dns_zone.deleted')
        .execute()
      expect(events.map((event) => JSON.parse(event.payload).id)).toEqual([zone.id])
      expect((await send('GET', '/usage')).body.dnsZones).toBe(0)
      // Its name is free for another customer.
      const next = (await send('POST', '/customers', { name: 'Next' })).body.id
      expect((await send('POST', '/dns-zones', { customerId: next, name: 'leaving.example' })).status).toBe(
        201,
      )
    } finally {
      await own.panel.close()
    }
  })
})
