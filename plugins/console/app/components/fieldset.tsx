// A group of fields under a legend, in a box of its own (a plan's limits, a webhook's events, a new site's first
// administrator): one look for every such group, the area adding only its spacing.

import type { FieldsetHTMLAttributes, ReactNode } from 'react'
import './fieldset.css'

/** A `<fieldset>` with its `legend`; other attributes (`aria-describedby`) go to the fieldset. */
export function Fieldset({
  legend,
  className,
  children,
  ...native
}: { legend: ReactNode; children: ReactNode } & FieldsetHTMLAttributes<HTMLFieldSetElement>) {
  return (
    <fieldset className={className ? `fieldset ${className}` : 'fieldset'} {...native}>
      <legend>{legend}</legend>
      {children}
    </fieldset>
  )
}
