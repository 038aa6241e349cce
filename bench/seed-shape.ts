// The shape of the bench's data, the same on both engines: how many customers and sites, which customer owns which
// site, and the counters the plugins would have kept for them.

/** How many rows the bench seeds. */
export interface SeedCounts {
  readonly customers: number
  readonly sites: number
  /** Sites of the one big customer (deep pages walk them), spread through the id range. */
  readonly bigCustomerSites: number
}

/** What a seeded store holds that the benchmark needs. */
export interface Seeded {
  /** The SQLite store's directory, or on PostgreSQL the panels' DATA_DIR (site files of the local node). */
  readonly dataDir: string
  readonly staffToken: string
  readonly limitedToken: string
  readonly bigCustomerId: string
  readonly secret: string
}

/** The installation secret of every bench store. */
export const benchSecret = 'bench-secret-bench-secret-bench-secret-!!'

/** 100k customers and 1M sites, 50k of them the big customer's, times `scale` (`BENCH_SCALE`). */
export function countsAt(scale: number): SeedCounts {
  return {
    customers: Math.round(100_000 * scale),
    sites: Math.round(1_000_000 * scale),
    bigCustomerSites: Math.round(50_000 * scale),
  }
}

/**
 * The owner of site `i` of `counts.sites`: every n-th site the big customer's (`customerIds[0]`), so its sites are
 * spread through the id range as they would be in a live installation; the rest round-robin over the others.
 */
export function siteOwner(i: number, counts: SeedCounts, customerIds: readonly string[]): string {
  return i % Math.ceil(counts.sites / counts.bigCustomerSites) === 0
    ? (customerIds[0] ?? '')
    : (customerIds[1 + (i % (counts.customers - 1))] ?? '')
}

/** Usage counters as the plugins would have kept them (shard 0 on either engine): one statement for both. */
export const usageCountersSql = `INSERT INTO usage_counters (scope_key, metric, value)
    SELECT 'customer:' || id, 'customers', 1 FROM customers
    UNION ALL SELECT 'all', 'customers', count(*) FROM customers
    UNION ALL SELECT 'brand:' || brand_id, 'customers', count(*) FROM customers GROUP BY brand_id
    UNION ALL SELECT 'customer:' || customer_id, 'sites', count(*) FROM sites GROUP BY customer_id
    UNION ALL SELECT 'all', 'sites', count(*) FROM sites
    UNION ALL SELECT 'customer:' || customer_id, 'domains', count(*) FROM sites GROUP BY customer_id
    UNION ALL SELECT 'all', 'domains', count(*) FROM sites`

/** The per-node counts placement reads, as the sites plugin keeps them. */
export const nodeSiteCountsSql =
  'INSERT INTO node_site_counts (node_id, sites) SELECT node_id, count(*) FROM sites GROUP BY node_id'
