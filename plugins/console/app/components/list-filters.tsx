// A list's filters live in the query string, so a filtered view is a link to share and survives a reload. Two
// kinds, written once here because every list has one: selects applied by a "Filter" button, and selects that
// apply as they change.

import { useId } from 'react'
import { setQuery, useLocation } from '../router.tsx'
import { useCustomerOptions } from './customer-field.tsx'
import { SelectField, useApiForm } from './form.tsx'
import './list-filters.css'

/** A select option; a filter's "any" choice has the value `''`, which removes the parameter. */
export interface FilterOption {
  readonly value: string
  readonly label: string
}

/** One select of a {@link FilterForm}: the query parameter `name`, its label and choices, and its value now. */
export interface SelectFilter {
  readonly name: string
  readonly label: string
  readonly options: readonly FilterOption[]
  readonly value: string
}

/**
 * Selects applied together by "Filter". The form is keyed by the values in the URL, so when they change
 * (back, a link) the selects show them again.
 */
export function FilterForm({ filters }: { filters: readonly SelectFilter[] }) {
  return <FilterSelects key={filters.map((filter) => filter.value).join('\n')} filters={filters} />
}

function FilterSelects({ filters }: { filters: readonly SelectFilter[] }) {
  const form = useApiForm(async (data) =>
    setQuery(Object.fromEntries(filters.map(({ name }) => [name, String(data.get(name) ?? '')]))),
  )
  return (
    <form className="form-inline" onSubmit={form.submit} noValidate>
      {filters.map((filter) => (
        <SelectField
          key={filter.name}
          form={form}
          name={filter.name}
          label={filter.label}
          options={filter.options}
          defaultValue={filter.value}
        />
      ))}
      <button type="submit" className="button secondary">
        Filter
      </button>
    </form>
  )
}

/**
 * A select bound to the query parameter `name`, applied as soon as it changes. It shows the parameter, or `value`
 * where the page reads the parameter with a fallback of its own.
 */
export function QuerySelect({
  name,
  label,
  options,
  value,
}: {
  name: string
  label: string
  options: readonly FilterOption[]
  value?: string
}) {
  const { query } = useLocation()
  const id = useId()
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value ?? query.get(name) ?? ''}
        onChange={(event) => setQuery({ [name]: event.target.value || null })}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  )
}

/** A list's customer filter (`?customerId=`), for callers who see more than one customer. */
export function CustomerFilter() {
  const { options } = useCustomerOptions()
  if (options.length < 2) return null
  return (
    <div className="form-inline list-filters">
      <QuerySelect
        name="customerId"
        label="Customer"
        options={[{ value: '', label: 'All customers' }, ...options]}
      />
    </div>
  )
}
