// Passwords as the plugin makes and checks them, and the verifiers the servers are given instead: checked against
// the real servers (MariaDB's own PASSWORD(), and a PostgreSQL login with the SCRAM secret the panel computed).

import { afterAll, describe, expect, test } from 'bun:test'
import mysql from 'mysql2/promise'
import postgres from 'postgres'
import { tenantGroupRole } from './engines/postgresql.ts'
import { generatePassword, isStrongPassword, verifierFor } from './passwords.ts'
import { postgresqlAdmin, requirePasswordsForTenants } from './test-servers.ts'

describe('generated passwords', () => {
  test('are 24 letters and digits without look-alikes, different each time, and strong', () => {
    const passwords = Array.from({ length: 200 }, generatePassword)
    expect(new Set(passwords).size).toBe(200)
    for (const password of passwords) {
      expect(password).toMatch(/^[A-HJ-NP-Za-km-z2-9]{24}$/)
      expect(isStrongPassword(password)).toBe(true)
    }
  })
})

describe('given passwords', () => {
  test('need 16 to 128 printable ASCII characters of three classes', () => {
    expect(isStrongPassword('Correct-Horse-Battery-9')).toBe(true)
    expect(isStrongPassword('short-Pass-1')).toBe(false)
    expect(isStrongPassword('alllowercaseletters')).toBe(false)
    expect(isStrongPassword('lowercase-and-dashes')).toBe(false)
    expect(isStrongPassword('lowercase and spaces')).toBe(false)
    expect(isStrongPassword('Lowercase and Spaces 9')).toBe(true)
    expect(isStrongPassword(`Aa1-${'x'.repeat(125)}`)).toBe(false)
    expect(isStrongPassword('Ünïcode-Password-123')).toBe(false)
    expect(isStrongPassword('Tab\tin-Password-123')).toBe(false)
  })
})

describe('verifiers', () => {
  const maria = mysql.createPool({
    host: '127.0.0.1',
    port: 3306,
    user: 'root',
    password: '',
    connectionLimit: 1,
  })
  const admin = postgres({ ...postgresqlAdmin, database: 'postgres', max: 1, onnotice: () => {} })
  const role = `verifier_${crypto.randomUUID().slice(0, 8)}`
  afterAll(async () => {
    await admin.unsafe(`DROP ROLE IF EXISTS ${role}`)
    await admin.end()
    await maria.end()
  })

  test('MariaDB: the same hash as the server’s own PASSWORD()', async () => {
    const password = generatePassword()
    const [rows] = await maria.query<mysql.RowDataPacket[]>('SELECT PASSWORD(?) AS hash', [password])
    expect(verifierFor('mariadb', password)).toBe(rows[0]?.hash)
  })

  test('PostgreSQL: a role given the SCRAM secret logs in with the password, and not with another', async () => {
    await requirePasswordsForTenants()
    const password = generatePassword()
    const verifier = verifierFor('postgresql', password)
    expect(verifier).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/)
    const [row] =
      await admin`select format('CREATE ROLE %I LOGIN IN ROLE %I PASSWORD %L', ${role}::text, ${tenantGroupRole}::text, ${verifier}::text) as statement`
    await admin.unsafe(String(row?.statement))
    // The server keeps what it was given: the password never reached it.
    const [stored] = await admin`select rolpassword from pg_authid where rolname = ${role}`
    expect(stored?.rolpassword).toBe(verifier)
    const login = (secret: string) =>
      postgres({
        ...postgresqlAdmin,
        username: role,
        password: secret,
        database: 'postgres',
        max: 1,
        onnotice: () => {},
      })
    const right = login(password)
    expect((await right`select current_user as who`)[0]?.who).toBe(role)
    await right.end()
    const wrong = login(`${password}x`)
    await expect(wrong`select 1`).rejects.toThrow(/password authentication failed/)
    await wrong.end()
  })
})
