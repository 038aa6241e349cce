// What a change writes beside itself, as a handler, a job or a plugin gives it: an audit entry and an event.

/** An audit entry as a handler writes it; the kernel adds actor, time, request id, address and brand. */
export interface AuditInput {
  /** `<resource>.<verb>`: `site.create`, `customer.update`, `token.revoke`. */
  readonly action: string
  readonly subject: { readonly type: string; readonly id: string }
  /** The customer concerned; null for staff-level changes (then `brandId`, when the record belongs to a brand). */
  readonly customerId: string | null
  /**
   * The brand of a record that belongs to a brand but to no customer (a plan, a webhook endpoint, a brand's staff
   * user), so that brand's staff see the entry. Entries with a customer take the customer's brand.
   */
  readonly brandId?: string | null
  /** What changed, without secrets. */
  readonly details?: Readonly<Record<string, unknown>>
}

/** An event as a handler emits it: a kind its plugin declared, the resource as data. */
export interface EventInput {
  readonly kind: string
  readonly customerId: string | null
  readonly data: Readonly<Record<string, unknown>>
}
