// Which database servers a site's node reaches, and the hosts its login is granted to: a server on the panel's
// loopback serves only sites on the panel's machine, and refuses (409 database_server_unreachable) a database of a
// site on another machine; a central server grants a remote node's site its node's address.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  expectProblem,
  nodeWithPlayedAgent,
  type TestPanel,
  waitFor,
} from '../../hosts/testing/index.ts'
import type { Site } from '../sites/contract.ts'
import { isLoopbackHost, reaches, siteLoginHosts, siteNodeOf } from './site-reach.ts'

describe('what a site’s node reaches', () => {
  const remote = siteNodeOf({ id: 'nod_remote', driver: 'agent', hostname: '10.0.0.9' })
  const local = siteNodeOf({ id: 'nod_local', driver: 'local', hostname: 'localhost' })
  const central = { host: 'db.example.net', node_id: null }
  const loopback = { host: '127.0.0.1', node_id: null }

  test('loopback names the machine itself, in every form', () => {
    for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]', 'LOCALHOST'])
      expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true })
    for (const host of ['10.0.0.9', '192.0.2.2', 'db.example.net', '::2', 'localhost.example.net'])
      expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false })
  })

  test('a server on the panel’s loopback serves the panel’s machine alone; a node’s own server its node alone', () => {
    expect(reaches(loopback, remote)).toBe(false)
    expect(reaches(loopback, local)).toBe(true)
    expect(reaches(central, remote)).toBe(true)
    expect(reaches({ host: '127.0.0.1', node_id: 'nod_remote' }, remote)).toBe(true)
    expect(reaches({ host: '127.0.0.1', node_id: 'nod_other' }, remote)).toBe(false)
  })

  test('a site’s login: its node’s address on a central server, loopback on its own node’s or the same machine', () => {
    expect(siteLoginHosts(central, remote)).toEqual(['10.0.0.9'])
    expect(siteLoginHosts({ host: '127.0.0.1', node_id: 'nod_remote' }, remote)).toEqual([
      '127.0.0.1',
      'localhost',
    ])
    expect(siteLoginHosts(loopback, local)).toEqual(['127.0.0.1', 'localhost'])
    expect(
      siteLoginHosts(central, siteNodeOf({ id: 'n', driver: 'agent', hostname: 'Web-1.Example.NET' })),
    ).toEqual(['web-1.example.net'])
  })
})

describe('a database of a site on another machine, with only a server on the panel’s loopback', () => {
  let tp: TestPanel
  let staff: string
  let customerId: string
  beforeAll(async () => {
    tp = await createTestPanel()
    tp.panel.start()
    staff = await tp.token()
    // A node at another address, laying out files only (a WordPress site there is a placeholder: no database).
    await nodeWithPlayedAgent(tp, staff, 'far-1', '10.0.0.9')
    const customer = await tp.request('POST', '/api/v1/customers', { token: staff, body: { name: 'Acme' } })
    customerId = ((await customer.json()) as { id: string }).id
    const server = await tp.request('POST', '/api/v1/database-servers', {
      token: staff,
      body: {
        name: 'panel-box',
        engine: 'mariadb',
        host: '127.0.0.1',
        port: 3306,
        username: 'root',
        password: '',
      },
    })
    expect(server.status).toBe(201)
  })
  afterAll(() => tp.panel.close())

  test('is refused with 409 database_server_unreachable, naming the server; one of no site still goes there', async () => {
    const created = await tp.request('POST', '/api/v1/sites', {
      token: staff,
      body: {
        customerId,
        name: 'Far',
        type: 'wordpress',
        domain: `far-${crypto.randomUUID().slice(0, 8)}.example.com`,
      },
    })
    expect(created.status).toBe(201)
    const site = (await created.json()) as Site
    const body = { customerId, engine: 'mariadb', siteId: site.id }
    const refused = await tp.request('POST', '/api/v1/databases', {
      token: staff,
      body: { ...body, name: 'shop' },
    })
    const problem = await expectProblem(refused, 409, 'database_server_unreachable')
    expect(problem.detail).toContain('panel-box at 127.0.0.1')
    const free = await tp.request('POST', '/api/v1/databases', {
      token: staff,
      body: { customerId, engine: 'mariadb', name: 'reports' },
    })
    expect(free.status).toBe(201)
    // Removed again, so the machine's MariaDB keeps nothing of the test.
    const { id } = (await free.json()) as { id: string }
    expect((await tp.request('DELETE', `/api/v1/databases/${id}`, { token: staff })).status).toBe(202)
    await waitFor(
      'the database to be dropped',
      async () => (await tp.request('GET', `/api/v1/databases/${id}`, { token: staff })).status === 404,
      30_000,
    )
  })
})
