// A small S3-compatible store for the backups tests, served by Bun over a folder: Debian has no MinIO, and the npm
// emulator s3rver (3.7.1) stores minio-go's `aws-chunked` uploads with their chunk framing, so restic cannot read
// back what it wrote. What restic uses and no more: path-style buckets (HeadBucket, CreateBucket,
// GetBucketLocation, ListObjectsV2), Put (plain or aws-chunked), Get (with Range), Head and Delete of objects.
// Every request's AWS Signature V4 is checked against the key's secret; a push-only key may delete nothing but
// restic's locks, as an IAM policy that allows DeleteObject on `…/locks/*` only.

import { createHash, createHmac } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, temporaryDataDir } from '../../../hosts/testing/index.ts'

/** An access key of the store. */
export interface S3Key {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** Whether it may delete only restic's locks (`…/locks/…`). Default false. */
  readonly pushOnly?: boolean
}

/** A running S3 store. */
export interface S3Peer {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string
  readonly port: number
  /** The folder buckets are kept in (a bucket is a folder, an object a file at its key). */
  readonly folder: string
  /** Requests it answered, newest last, with the access key each claimed (null: none). */
  readonly requests: readonly { method: string; path: string; accessKeyId: string | null; status: number }[]
  /** Stops listening: connections are refused. */
  stop(): Promise<void>
}

/**
 * Serves the store on a free port of 127.0.0.1, with `buckets` made.
 * @example const s3 = await startS3Server({ keys: [{ accessKeyId: 'AK', secretAccessKey: 'SK' }], buckets: ['backups'] })
 */
export async function startS3Server(options: {
  readonly keys: readonly S3Key[]
  readonly buckets?: readonly string[]
  /** Default: a fresh temporary folder, removed when the test process exits. */
  readonly folder?: string
}): Promise<S3Peer> {
  const { keys, buckets = [], folder = temporaryDataDir() } = options
  for (const bucket of buckets) mkdirSync(join(folder, bucket), { recursive: true })
  const requests: { method: string; path: string; accessKeyId: string | null; status: number }[] = []
  const port = freePort()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    maxRequestBodySize: 256 * 1024 * 1024,
    async fetch(request) {
      const url = new URL(request.url)
      const body = new Uint8Array(await request.arrayBuffer())
      const signed = verifySignature(keys, request, url, body)
      const response =
        'refusal' in signed
          ? signed.refusal
          : await answer(folder, signed.key, request.method, url, body, request)
      requests.push({
        method: request.method,
        path: decodeURIComponent(url.pathname),
        // The key the request claims, whether or not its signature held.
        accessKeyId: /Credential=([^/]+)\//.exec(request.headers.get('authorization') ?? '')?.[1] ?? null,
        status: response.status,
      })
      return response
    },
  })
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    folder,
    requests,
    async stop() {
      await server.stop(true)
    },
  }
}

async function answer(
  folder: string,
  key: S3Key,
  method: string,
  url: URL,
  body: Uint8Array,
  request: Request,
): Promise<Response> {
  const [bucket = '', ...rest] = decodeURIComponent(url.pathname).slice(1).split('/')
  const objectKey = rest.join('/')
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) return s3Error(400, 'InvalidBucketName')
  if (objectKey.split('/').some((part) => part === '..')) return s3Error(400, 'InvalidArgument')
  const bucketFolder = join(folder, bucket)
  if (objectKey === '') {
    if (method === 'PUT') {
      mkdirSync(bucketFolder, { recursive: true })
      return new Response(null, { status: 200 })
    }
    if (!existsSync(bucketFolder)) return s3Error(404, 'NoSuchBucket')
    if (method === 'HEAD') return new Response(null, { status: 200 })
    if (method === 'GET' && url.searchParams.has('location'))
      return xml('<LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></LocationConstraint>')
    if (method === 'GET') return listObjects(bucket, bucketFolder, url.searchParams)
    return s3Error(405, 'MethodNotAllowed')
  }
  if (!existsSync(bucketFolder)) return s3Error(404, 'NoSuchBucket')
  const file = join(bucketFolder, objectKey)
  switch (method) {
    case 'PUT': {
      if (url.searchParams.has('uploadId')) return s3Error(501, 'NotImplemented')
      const content = decodedBody(request, body)
      mkdirSync(join(file, '..'), { recursive: true })
      const temporary = `${file}.${crypto.randomUUID()}.uploading`
      writeFileSync(temporary, content)
      renameSync(temporary, file)
      return new Response(null, { status: 200, headers: { etag: `"${md5(content)}"` } })
    }
    case 'HEAD':
    case 'GET': {
      if (!existsSync(file) || !statSync(file).isFile()) return s3Error(404, 'NoSuchKey')
      const size = statSync(file).size
      const headers = {
        etag: `"${md5(await Bun.file(file).bytes())}"`,
        'last-modified': statSync(file).mtime.toUTCString(),
      }
      if (method === 'HEAD')
        return new Response(null, { headers: { ...headers, 'content-length': String(size) } })
      return ranged(file, size, request.headers.get('range'), headers)
    }
    case 'DELETE': {
      if (key.pushOnly && !objectKey.split('/').includes('locks')) return s3Error(403, 'AccessDenied')
      rmSync(file, { force: true })
      return new Response(null, { status: 204 })
    }
    default:
      return s3Error(405, 'MethodNotAllowed')
  }
}

/** ListObjectsV2 over the bucket's files, in key order: `prefix`, `delimiter`, `max-keys`, continuation. */
function listObjects(bucket: string, folder: string, query: URLSearchParams): Response {
  const prefix = query.get('prefix') ?? ''
  const delimiter = query.get('delimiter') ?? ''
  const maxKeys = Math.min(Number(query.get('max-keys') ?? 1000) || 1000, 1000)
  const after = query.get('continuation-token') ?? query.get('start-after') ?? ''
  const keys: string[] = []
  const walk = (dir: string, at: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const name = `${at}${entry.name}`
      if (entry.isDirectory()) walk(join(dir, entry.name), `${name}/`)
      else if (!entry.name.endsWith('.uploading')) keys.push(name)
    }
  }
  walk(folder, '')
  const contents: string[] = []
  const prefixes = new Set<string>()
  let truncated = false
  let last = ''
  for (const key of keys.filter((key) => key.startsWith(prefix) && key > after).sort()) {
    if (contents.length + prefixes.size >= maxKeys) {
      truncated = true
      break
    }
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1
    if (cut >= 0) prefixes.add(key.slice(0, cut + delimiter.length))
    else {
      const stat = statSync(join(folder, key))
      contents.push(
        `<Contents><Key>${xmlText(key)}</Key><LastModified>${stat.mtime.toISOString()}</LastModified><ETag>&quot;${stat.size}&quot;</ETag><Size>${stat.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
      )
    }
    last = key
  }
  return xml(
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${xmlText(bucket)}</Name><Prefix>${xmlText(prefix)}</Prefix><KeyCount>${contents.length + prefixes.size}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><Delimiter>${xmlText(delimiter)}</Delimiter><IsTruncated>${truncated}</IsTruncated>${truncated ? `<NextContinuationToken>${xmlText(last)}</NextContinuationToken>` : ''}${contents.join('')}${[...prefixes].map((common) => `<CommonPrefixes><Prefix>${xmlText(common)}</Prefix></CommonPrefixes>`).join('')}</ListBucketResult>`,
  )
}

function ranged(file: string, size: number, range: string | null, headers: Record<string, string>): Response {
  const whole = Bun.file(file)
  if (!range) return new Response(whole, { headers: { ...headers, 'content-length': String(size) } })
  const match = /^bytes=(\d+)-(\d*)$/.exec(range)
  const start = Number(match?.[1] ?? Number.NaN)
  const end = match?.[2] ? Math.min(Number(match[2]), size - 1) : size - 1
  if (!match || start >= size || end < start) return s3Error(416, 'InvalidRange')
  return new Response(whole.slice(start, end + 1), {
    status: 206,
    headers: {
      ...headers,
      'content-range': `bytes ${start}-${end}/${size}`,
      'content-length': String(end - start + 1),
    },
  })
}

/** The object's bytes: minio-go sends plain bodies over https and `aws-chunked` framed ones over plain http. */
function decodedBody(request: Request, body: Uint8Array): Uint8Array {
  if (request.headers.get('x-amz-content-sha256') !== 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD') return body
  const parts: Uint8Array[] = []
  let at = 0
  while (at < body.length) {
    const lineEnd = body.indexOf(0x0d, at)
    const header = Buffer.from(body.subarray(at, lineEnd)).toString()
    const size = Number.parseInt(header.split(';')[0] ?? '', 16)
    if (!Number.isFinite(size) || size === 0) break
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts)
}

/** The key that signed the request, or the refusal AWS would give (an unknown key, a signature that differs). */
function verifySignature(
  keys: readonly S3Key[],
  request: Request,
  url: URL,
  body: Uint8Array,
): { key: S3Key } | { refusal: Response } {
  const authorization = request.headers.get('authorization') ?? ''
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(
      authorization,
    )
  if (!match) return { refusal: s3Error(403, 'AccessDenied') }
  const [, accessKeyId, scope = '', signedHeaders = '', signature] = match
  const key = keys.find((candidate) => candidate.accessKeyId === accessKeyId)
  if (!key) return { refusal: s3Error(403, 'InvalidAccessKeyId') }
  const payloadHash = request.headers.get('x-amz-content-sha256') ?? sha256(body)
  const canonicalRequest = [
    request.method,
    url.pathname,
    canonicalQuery(url.search),
    ...signedHeaders
      .split(';')
      .map((name) => `${name}:${(request.headers.get(name) ?? '').trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n')
  const amzDate = request.headers.get('x-amz-date') ?? ''
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n')
  const [date = '', region = '', service = ''] = scope.split('/')
  let signing: Buffer = hmac(`AWS4${key.secretAccessKey}`, date)
  for (const part of [region, service, 'aws4_request']) signing = hmac(signing, part)
  if (hmac(signing, stringToSign).toString('hex') !== signature)
    return { refusal: s3Error(403, 'SignatureDoesNotMatch') }
  return { key }
}

function canonicalQuery(search: string): string {
  const pairs = search
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const [name = '', value = ''] = pair.split('=')
      return [awsEncode(decodeURIComponent(name)), awsEncode(decodeURIComponent(value.replaceAll('+', ' ')))]
    })
    .sort(([a = '', x = ''], [b = '', y = '']) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
  return pairs.map(([name, value]) => `${name}=${value}`).join('&')
}

function awsEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest()
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

function md5(data: Uint8Array): string {
  return createHash('md5').update(data).digest('hex')
}

function xmlText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

function xml(text: string): Response {
  return new Response(`<?xml version="1.0" encoding="UTF-8"?>\n${text}`, {
    headers: { 'content-type': 'application/xml' },
  })
}

function s3Error(status: number, code: string): Response {
  return new Response(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message></Error>`,
    { status, headers: { 'content-type': 'application/xml' } },
  )
}
