// A page's heading with its actions, and titled sections. The heading takes the focus after navigation (see
// router.navigate), so it is focusable.

import { type ReactNode, useEffect } from 'react'

export function PageHeader({
  title,
  subtitle,
  actions,
}: {
  title: string
  subtitle?: ReactNode
  actions?: ReactNode
}) {
  useEffect(() => {
    document.title = `${title} · ${document.documentElement.dataset.brandName ?? 'Control panel'}`
  }, [title])
  return (
    <header className="page-header">
      <div>
        <h1 tabIndex={-1}>{title}</h1>
        {subtitle ? <p className="muted">{subtitle}</p> : null}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  )
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string
  children: ReactNode
  actions?: ReactNode
}) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
  return (
    <section className="section" aria-labelledby={id}>
      <div className="section-header">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  )
}

/** A definition list of a resource's fields. */
export function Facts({ items }: { items: readonly (readonly [string, ReactNode])[] }) {
  return (
    <dl className="facts">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}
