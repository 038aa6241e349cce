// `/users/new` (staff): a plain user (to add to customers' teams), brand staff, or (platform staff only) platform
// staff. Coming from a customer's page (`?customerId=…&email=…`), a plain user is then offered that team.

import { useState } from 'react'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { useBrandName, useBrands } from '../../components/brands.ts'
import { FormFooter, SelectField, TextField, textOf, useApiForm } from '../../components/form.tsx'
import { Breadcrumbs, PageHeader } from '../../components/page.tsx'
import { navigate, useLocation } from '../../router.tsx'
import { useSession } from '../../session.tsx'
import { AddToTeam } from './add-to-team.tsx'

type StaffRole = NonNullable<Schemas['CreateUserBody']['staffRole']>

function staffRoleOf(value: string | undefined): StaffRole | null {
  return value === 'platform' || value === 'brand' ? value : null
}

export function NewUser() {
  const session = useSession()
  const { query } = useLocation()
  const customerId = query.get('customerId') ?? ''
  const [staffRole, setStaffRole] = useState('')
  const { brands } = useBrands()
  const brandName = useBrandName()
  const platform = session.me.kind === 'platform'
  const form = useApiForm(
    (data) => {
      const role = staffRoleOf(textOf(data, 'staffRole'))
      const brandId = textOf(data, 'brandId')
      return unwrap(
        api.POST('/api/v1/users', {
          body: {
            email: textOf(data, 'email') ?? '',
            // Passwords are taken as typed: spaces may be part of them.
            password: String(data.get('password') ?? ''),
            staffRole: role,
            ...(role === 'brand' && brandId ? { brandId } : {}),
          },
        }),
      )
    },
    {
      onSuccess: (user) => {
        // From a customer's page, a plain user is offered its team below; anyone else goes to their page.
        if (!(customerId && user.staffRole === null)) navigate(`/users/${encodeURIComponent(user.id)}`)
      },
    },
  )
  const created = form.result
  const staffOptions = [
    { value: '', label: 'None: a customer user' },
    { value: 'brand', label: 'Brand staff' },
    ...(platform ? [{ value: 'platform', label: 'Platform staff' }] : []),
  ]
  return (
    <>
      {customerId ? (
        <Breadcrumbs to={`/customers/${encodeURIComponent(customerId)}`} label="Back to the customer" />
      ) : (
        <Breadcrumbs to="/users" label="Staff and users" />
      )}
      <PageHeader
        title="New user"
        subtitle="Customer users sign in to the portal and work on the teams you add them to; staff run the panel."
      />
      {created && customerId && created.staffRole === null ? (
        <AddToTeam user={created} customerId={customerId} />
      ) : (
        <form onSubmit={form.submit} noValidate aria-label="Create user">
          <TextField
            form={form}
            name="email"
            label="E-mail"
            type="email"
            defaultValue={query.get('email') ?? ''}
            autoComplete="off"
            required
          />
          <TextField
            form={form}
            name="password"
            label="Password"
            type="password"
            autoComplete="new-password"
            hint="12 to 256 characters. Pass it on safely; they can change it under Your account."
            required
          />
          <SelectField
            form={form}
            name="staffRole"
            label="Staff role"
            value={staffRole}
            onChange={(event) => setStaffRole(event.target.value)}
            options={staffOptions}
            hint="Staff see every customer of their brand (platform staff: of every brand). Customer users see only their teams."
          />
          {staffRole === 'brand' ? (
            platform ? (
              <SelectField
                form={form}
                name="brandId"
                label="Brand"
                defaultValue={brands.find((brand) => brand.isDefault)?.id}
                options={brands.map((brand) => ({ value: brand.id, label: brand.name }))}
              />
            ) : (
              <p className="muted">They join your brand, {brandName(session.me.brandId)}.</p>
            )
          ) : null}
          <FormFooter form={form}>Create user</FormFooter>
        </form>
      )}
    </>
  )
}
