// Every item of a list, page after page by cursor, for the few places that need a whole list at once (a select of
// brands, names to show beside ids). Capped: a list longer than that wants a search, not a select.

export async function allPages<T>(
  load: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | null }>,
  most = 1000,
): Promise<T[]> {
  const found: T[] = []
  let cursor: string | undefined
  do {
    const page = await load(cursor)
    found.push(...page.items)
    cursor = page.nextCursor ?? undefined
  } while (cursor && found.length < most)
  return found
}
