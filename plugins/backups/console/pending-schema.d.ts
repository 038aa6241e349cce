// Written by hand from the targets' routes on their branch, until the backups plugin mounts them;
// api.ts adds these to the generated schema.d.ts. Removed once `bun scripts/write-api-types.ts` writes them.

type Json<T> = { content: { 'application/json': T } }
type Problem = Json<{ type: string; title: string; status: number; code: string; detail?: string }>
type Refusals = { 400: Problem; 401: Problem; 403: Problem; 404: Problem; 409: Problem; 422: Problem }
type Page<T> = { items: T[]; nextCursor: string | null }

export interface paths {
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

export interface components {
  schemas: {
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
