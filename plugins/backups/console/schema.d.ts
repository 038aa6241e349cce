// Written by hand from plugins/backups/contract.ts and the routes DESIGN.md names, until the backups plugin serves
// its operations; `bun scripts/write-api-types.ts` replaces it with the served document's.

type Json<T> = { content: { 'application/json': T } }
type Problem = Json<components['schemas']['Problem']>
type Refusals = { 400: Problem; 401: Problem; 403: Problem; 404: Problem; 409: Problem; 422: Problem }
type Page<T> = { items: T[]; nextCursor: string | null }

export interface paths {
  '/api/v1/sites/{id}/backups': {
    get: {
      parameters: { path: { id: string }; query?: { cursor?: string; limit?: number } }
      responses: { 200: Json<Page<components['schemas']['Backup']>> } & Refusals
    }
    post: {
      parameters: { path: { id: string }; header?: { 'Idempotency-Key'?: string } }
      responses: { 202: Json<components['schemas']['BackupAccepted']> } & Refusals
    }
  }
  '/api/v1/sites/{id}/backups/{backupId}': {
    get: {
      parameters: { path: { id: string; backupId: string } }
      responses: { 200: Json<components['schemas']['Backup']> } & Refusals
    }
  }
  '/api/v1/sites/{id}/backups/{backupId}/restore': {
    post: {
      parameters: { path: { id: string; backupId: string }; header?: { 'Idempotency-Key'?: string } }
      requestBody: Json<components['schemas']['RestoreRequest']>
      responses: { 202: Json<components['schemas']['RestoreAccepted']> } & Refusals
    }
  }
  '/api/v1/sites/{id}/backups/{backupId}/download': {
    post: {
      parameters: { path: { id: string; backupId: string } }
      responses: { 201: Json<{ url: string; expiresAt: string }> } & Refusals
    }
  }
  '/api/v1/sites/{id}/backup-policy': {
    get: {
      parameters: { path: { id: string } }
      responses: { 200: Json<components['schemas']['SiteBackupPolicy']> } & Refusals
    }
    put: {
      parameters: { path: { id: string } }
      requestBody: Json<components['schemas']['OwnBackupPolicyBody']>
      responses: { 200: Json<components['schemas']['SiteBackupPolicy']> } & Refusals
    }
    delete: {
      parameters: { path: { id: string } }
      responses: { 200: Json<components['schemas']['SiteBackupPolicy']> } & Refusals
    }
  }
  '/api/v1/backups/overdue': {
    get: {
      parameters: { query?: { cursor?: string; limit?: number } }
      responses: { 200: Json<Page<components['schemas']['OverdueSite']>> } & Refusals
    }
  }
  '/api/v1/backup-targets': {
    get: {
      parameters: { query?: { cursor?: string; limit?: number } }
      responses: { 200: Json<Page<components['schemas']['BackupTarget']>> } & Refusals
    }
    post: {
      requestBody: Json<components['schemas']['CreateBackupTargetBody']>
      responses: { 201: Json<components['schemas']['BackupTarget']> } & Refusals
    }
  }
  '/api/v1/backup-targets/{id}': {
    get: {
      parameters: { path: { id: string } }
      responses: { 200: Json<components['schemas']['BackupTarget']> } & Refusals
    }
    patch: {
      parameters: { path: { id: string } }
      requestBody: Json<{ name?: string; default?: boolean }>
      responses: { 200: Json<components['schemas']['BackupTarget']> } & Refusals
    }
    delete: {
      parameters: { path: { id: string } }
      responses: { 204: { content?: never } } & Refusals
    }
  }
}

type Source = 'site' | 'plan' | 'default'

export interface components {
  schemas: {
    Problem: {
      type: string
      title: string
      status: number
      code: string
      detail?: string
      errors?: { location: string; message: string; code?: string }[]
    }
    BackupContents: {
      files: { count: number; bytes: number } | null
      databases: {
        databaseId: string
        name: string
        engine: 'mariadb' | 'postgresql'
        bytes: number
        tables: number
      }[]
      record: boolean
    }
    Backup: {
      id: string
      siteId: string
      customerId: string
      targetId: string
      status: 'running' | 'completed' | 'failed'
      reason: 'manual' | 'scheduled' | 'pre-restore'
      verified: boolean
      sizeBytes: number | null
      storedBytes: number | null
      contents: components['schemas']['BackupContents'] | null
      jobId: string | null
      error: { code: string; message: string } | null
      createdAt: string
      finishedAt: string | null
    }
    RestoreRequest: {
      files?: boolean | string[]
      databases?: boolean | string[]
      into?: { newSite: { domain: string; nodeId?: string } }
    }
    RestoreAccepted: { jobId: string; preRestoreBackupId: string | null; siteId: string; backupId: string }
    BackupAccepted: { jobId: string; backup: components['schemas']['Backup'] }
    BackupPolicy: {
      schedule: 'off' | 'daily' | 'weekly'
      keepDaily: number
      keepWeekly: number
      keepMonthly: number
    }
    SiteBackupPolicy: {
      siteId: string
      schedule: { value: 'off' | 'daily' | 'weekly'; source: Source }
      keepDaily: { value: number; source: Source }
      keepWeekly: { value: number; source: Source }
      keepMonthly: { value: number; source: Source }
      own: {
        schedule: 'off' | 'daily' | 'weekly' | null
        keepDaily: number | null
        keepWeekly: number | null
        keepMonthly: number | null
        targetId: string | null
        updatedAt: string
      } | null
      target: { id: string; name: string; kind: string; source: 'site' | 'default' } | null
      lastGoodBackupAt: string | null
      nextDueAt: string | null
      overdue: boolean
    }
    OwnBackupPolicyBody: {
      schedule?: 'off' | 'daily' | 'weekly' | null
      keepDaily?: number | null
      keepWeekly?: number | null
      keepMonthly?: number | null
      targetId?: string | null
    }
    OverdueSite: {
      siteId: string
      customerId: string
      domain: string
      nodeId: string | null
      schedule: 'off' | 'daily' | 'weekly'
      lastGoodBackupAt: string | null
      lastFailure: { code: string; message: string; at: string } | null
    }
    BackupTarget: {
      id: string
      name: string
      kind: 'local' | 'sftp' | 'rest' | 's3'
      default: boolean
      pushOnly: boolean
      location: { [key: string]: string | number | null }
      createdAt: string
      updatedAt: string
    }
    CreateBackupTargetBody: {
      name: string
      kind: 'local' | 'sftp' | 'rest' | 's3'
      default?: boolean
      [field: string]: unknown
    }
  }
}
