// The body a declared create form sends: what each kind of field makes of what the user entered.

import { expect, test } from 'bun:test'
import { bodyOf, type CreateField } from './create-body.ts'

const fields: CreateField[] = [
  { name: 'name' },
  { name: 'ttl', type: 'number' },
  { name: 'customerId', type: 'customer' },
  { name: 'readOnly', type: 'checkbox' },
  { name: 'enabled', type: 'yes-no' },
  { name: 'public', type: 'yes-no' },
  { name: 'status', options: ['', 'active', 'draining'] },
]

const formData = (entries: Record<string, string>) => {
  const data = new FormData()
  for (const [name, value] of Object.entries(entries)) data.set(name, value)
  return data
}

test('texts are trimmed, numbers are numbers, a yes-no is a boolean, and what is left empty is not sent', () => {
  const data = formData({
    name: '  www ',
    ttl: '300',
    customerId: '',
    enabled: 'false',
    public: '',
    status: '',
  })
  expect(bodyOf(fields, data)).toEqual({ name: 'www', ttl: 300, readOnly: false, enabled: false })
})

test('a checked checkbox is true, a chosen option is sent, and a number that is not one goes to the API as NaN', () => {
  const data = formData({ ttl: 'soon', readOnly: 'true', enabled: 'true', status: 'draining' })
  expect(bodyOf(fields, data)).toEqual({ ttl: Number.NaN, readOnly: true, enabled: true, status: 'draining' })
})
