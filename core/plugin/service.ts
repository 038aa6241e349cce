// Services: a typed handle one plugin provides and others use, declared in the provider's contract file.

/** Names a service; the implementation is provided per panel by the owner during setup. */
export interface ServiceRef<T> {
  /** `<owner>.<name>`, e.g. `customers.directory`. */
  readonly id: string
  readonly owner: string
  readonly description: string
  /** Phantom member carrying the implementation type; never set. */
  readonly __service?: T
}

/**
 * Declares a service in the owner's contract file.
 * @example export const customerDirectory = defineService<CustomerDirectory>({ id: 'customers.directory', owner: 'customers', description: '…' })
 */
export function defineService<T>(ref: Omit<ServiceRef<T>, '__service'>): ServiceRef<T> {
  if (!ref.id.startsWith(`${ref.owner}.`))
    throw new Error(`Service "${ref.id}" must be named "${ref.owner}.<name>"`)
  return ref
}
