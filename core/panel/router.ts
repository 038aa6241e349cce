// Wiring: every compiled route on one router, the document and its reference page, and the one
// `handle` every host calls. A router that cannot be built fails here, at start-up, never at a request.

import { Elysia } from 'elysia'
import { errorResponse } from '../http/render-error.ts'
import type { CompiledRoute, RequestInfo, RequestTrace } from '../http/route-pipeline.ts'
import { newRequestId } from '../ids/request-ids.ts'
import { docsAsset, docsPageHtmlFor, docsPageSecurityHeaders, prefersHtml } from '../openapi/docs-page.ts'
import type { Logger } from '../plugin/define-plugin.ts'
import { type WebRoute, webRouteMatcher } from '../plugin/web-route.ts'
import { kernelProblems } from '../problem/kernel-problems.ts'
import { Problem } from '../problem/problem.ts'
import { type KnownRoute, notFoundProblem, routePattern } from './error-response.ts'

/** A compiled route with where it is mounted. */
export interface MountedCompiledRoute {
  readonly compiled: CompiledRoute
  readonly fullPath: string
}

/**
 * A GET answered beside the API and its document (`/metrics`): outside the pipeline, so never rate limited nor
 * described; it answers refusals itself.
 */
export interface PlainEndpoint {
  readonly path: string
  answer(request: Request, info: RequestInfo): Promise<Response>
}

/** What one finished request looked like, for the request log and metrics. */
export interface RequestRecord {
  readonly requestId: string
  readonly method: string
  /** The route template (`/api/v1/sites/:id`), or null when no route matched. */
  readonly route: string | null
  readonly status: number
  readonly durationMs: number
  readonly address: string | null
  readonly userId: string | null
  readonly tokenId: string | null
  readonly customerId: string | null
}

/** An incoming X-Request-Id the panel keeps as its own: short, printable, no spaces. */
const requestIdPattern = /^[A-Za-z0-9._:@-]{1,128}$/

/** The request id of a request: the client's or proxy's `X-Request-Id` when well-formed, else a new one. */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id')
  return given !== null && requestIdPattern.test(given) ? given : newRequestId()
}

/**
 * The path of `url` when it can be looked up as written, or null when the router must decide: a path it would
 * normalise (percent-escapes, a trailing slash) or a URL with a fragment.
 */
function staticPathOf(url: string): string | null {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0 || url.includes('#')) return null
  const query = url.indexOf('?', start)
  const path = query < 0 ? url.slice(start) : url.slice(start, query)
  return path.length > 1 && !path.endsWith('/') && !path.includes('%') ? path : null
}

/**
 * The request Elysia's router can read. It finds the path by searching for '/' from the 12th character on, which
 * skips the start of the path when the host is one to three characters (`http://api/v1/...` from a container
 * named `api`): such a request is routed through a body-less stand-in with a longer host, and the routes answer
 * the client's own request.
 */
function forRouting(request: Request): Request {
  const url = request.url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start >= 11 || start < 0) return request
  return new Request(`http://routing.invalid${url.slice(start)}`, {
    method: request.method,
    headers: request.headers,
  })
}

/** Headers on every answer: browsers must not guess a content type the panel did not send. */
function secured(response: Response): Response {
  response.headers.set('x-content-type-options', 'nosniff')
  return response
}

/** Builds the router; `document` is made from the mounted routes by `describe`, once they are mounted. */
export function createRouter(input: {
  readonly routes: readonly MountedCompiledRoute[]
  readonly docsPath: string
  readonly basePath: string
  readonly describe: (app: Elysia) => string
  readonly observe?: (record: RequestRecord) => void
  /** Where unexpected failures are logged, with their request id. */
  readonly log: Logger
  readonly endpoints?: readonly PlainEndpoint[]
  /** Plugins' web routes, asked for GETs outside the API and its document. */
  readonly webRoutes?: readonly WebRoute[]
}) {
  const { log } = input
  const app = new Elysia({ name: 'plinth' })
  const infos = new WeakMap<Request, RequestInfo>()
  /** The client's request behind a stand-in made only for routing (see `forRouting`). */
  const originals = new WeakMap<Request, Request>()
  const originalOf = (request: Request): Request => originals.get(request) ?? request
  const known: KnownRoute[] = []
  /** Routes without path parameters, by `METHOD /path`: most requests, answered without the router. */
  const direct = new Map<
    string,
    (request: Request, params: Record<string, string>, info: RequestInfo) => Promise<Response>
  >()

  const infoOf = (request: Request): RequestInfo => {
    let info = infos.get(request)
    if (!info) {
      info = { requestId: requestIdOf(request), address: null, trace: {} }
      infos.set(request, info)
    }
    return info
  }
  /** The info of a request answered by one of the router's own routes, which names its template for the log. */
  const routed = (request: Request, template: string): RequestInfo => {
    const info = infoOf(request)
    if (info.trace) info.trace.route = template
    return info
  }

  for (const { compiled, fullPath } of input.routes) {
    const { route } = compiled
    const serve = async (
      request: Request,
      params: Record<string, string>,
      info: RequestInfo,
    ): Promise<Response> => {
      if (info.trace) info.trace.route = fullPath
      try {
        return await compiled.answer(request, params, info)
      } catch (error) {
        return errorResponse(error, info.requestId, log, { route: fullPath })
      }
    }
    app.route(
      route.method,
      fullPath,
      // Elysia gives routes without path parameters `undefined`; the direct path gives `{}`. One value, so a cursor
      // (bound to the parameters) works whichever way the request came.
      ({ request, params }) =>
        serve(originalOf(request), (params ?? {}) as Record<string, string>, infoOf(request)),
      { parse: 'none', detail: { operationId: route.operationId } },
    )
    if (!fullPath.includes(':')) direct.set(`${route.method} ${fullPath}`, serve)
    known.push({ method: route.method, pattern: routePattern(fullPath) })
  }

  for (const endpoint of input.endpoints ?? []) {
    const { path } = endpoint
    app.get(path, ({ request }) => endpoint.answer(originalOf(request), routed(request, path)), {
      detail: { hide: true },
    })
    direct.set(`GET ${path}`, (request, _params, info) => {
      if (info.trace) info.trace.route = path
      return endpoint.answer(request, info)
    })
    known.push({ method: 'GET', pattern: routePattern(path) })
  }

  const documentJson = input.describe(app)
  const { docsPath } = input
  const web = webRouteMatcher(input.webRoutes ?? [])
  /** Paths web routes are never offered, nor what lies below them: the API, its document, `/metrics`. */
  const reserved = [input.basePath, docsPath, ...(input.endpoints ?? []).map((endpoint) => endpoint.path)]
  /** A web route's answer to a browser's GET, or null: never for the API, its document or `/metrics`. */
  const webAnswer = async (request: Request): Promise<Response | null> => {
    if (request.method !== 'GET') return null
    const path = new URL(request.url).pathname
    if (reserved.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return null
    for (const route of web.candidates(path)) {
      const answer = await route.answer(request)
      if (answer) return answer
    }
    return null
  }
  const docsPage = docsPageHtmlFor(docsPath)
  const json = (body: string) => new Response(body, { headers: { 'content-type': 'application/json' } })
  // A lost client (a browser at the root, a script at the base path) is pointed at the document.
  const index = JSON.stringify({
    name: 'Plinth API',
    api: input.basePath,
    docs: docsPath,
    detail: `The API lives under ${input.basePath}; its OpenAPI 3.1 document and reference are at ${docsPath}.`,
  })
  app
    .get(
      '/',
      async ({ request }) => {
        routed(request, '/')
        const page = await webAnswer(originalOf(request))
        if (page) return page
        // A web route may answer browsers here: caches keep the two answers apart.
        const answer = json(index)
        answer.headers.set('vary', 'Accept')
        return answer
      },
      { detail: { hide: true } },
    )
    .get(
      input.basePath,
      ({ request }) => {
        routed(request, input.basePath)
        return json(index)
      },
      { detail: { hide: true } },
    )
    .get(
      docsPath,
      ({ request }) => {
        routed(request, docsPath)
        // The page's links are relative to the docs path; with a trailing slash they would resolve one level down.
        if (new URL(request.url).pathname.endsWith('/')) {
          return new Response(null, { status: 308, headers: { location: docsPath.split('/').at(-1) ?? '' } })
        }
        const headers = { vary: 'Accept' }
        return prefersHtml(originalOf(request).headers.get('accept'))
          ? new Response(docsPage, {
              headers: { ...headers, ...docsPageSecurityHeaders, 'content-type': 'text/html; charset=utf-8' },
            })
          : new Response(documentJson, { headers: { ...headers, 'content-type': 'application/json' } })
      },
      { detail: { hide: true } },
    )
    .get(
      `${docsPath}/openapi.json`,
      ({ request }) => {
        routed(request, `${docsPath}/openapi.json`)
        return json(documentJson)
      },
      { detail: { hide: true } },
    )
    .get(
      `${docsPath}/assets/:name`,
      ({ params, request }) => {
        const { requestId } = routed(request, `${docsPath}/assets/:name`)
        return docsAsset(params.name) ?? new Problem(kernelProblems.not_found).toResponse(requestId)
      },
      { detail: { hide: true } },
    )
    .onError(async ({ code, error, request }) => {
      const { requestId } = infoOf(request)
      if (code === 'NOT_FOUND') {
        const page = await webAnswer(originalOf(request))
        if (page) {
          routed(request, 'web')
          return page
        }
        return notFoundProblem(request, known).toResponse(requestId)
      }
      return errorResponse(error, requestId, log)
    })
  for (const path of ['/', input.basePath, docsPath, `${docsPath}/openapi.json`])
    known.push({ method: 'GET', pattern: routePattern(path) })
  // Built now: a route the router cannot hold must stop the start-up, not answer 500 to every request later.
  app.compile()

  return {
    app,
    /** Answers one request; hosts pass what they know of it (the client address). */
    async handle(request: Request, given?: { readonly address?: string | null }): Promise<Response> {
      const started = performance.now()
      const trace: RequestTrace = {}
      const info = { requestId: requestIdOf(request), address: given?.address ?? null, trace }
      let response: Response
      const path = staticPathOf(request.url)
      const serve = path === null ? undefined : direct.get(`${request.method} ${path}`)
      try {
        if (serve) response = await serve(request, {}, info)
        else {
          const routing = forRouting(request)
          infos.set(routing, info)
          if (routing !== request) originals.set(routing, request)
          response = await app.handle(routing)
        }
      } catch (error) {
        response = errorResponse(error, info.requestId, log)
      }
      if (!response.headers.has('x-request-id')) response.headers.set('x-request-id', info.requestId)
      input.observe?.({
        requestId: info.requestId,
        method: request.method,
        route: trace.route ?? null,
        status: response.status,
        durationMs: performance.now() - started,
        address: info.address,
        userId: trace.userId ?? null,
        tokenId: trace.tokenId ?? null,
        customerId: trace.customerId ?? null,
      })
      return secured(response)
    },
  }
}
