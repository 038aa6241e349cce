// A brand's white-label theme and host names through PATCH /api/v1/brands/{id}, and the public GET /api/v1/branding
// a sign-in page reads before anyone has signed in.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  createTestPanel,
  createTestUser,
  expectFieldProblem,
  expectProblem,
  type Page,
  type TestPanel,
} from '../../hosts/testing/index.ts'
import type { Brand, Branding } from './contract.ts'
import { brandsPlugin } from './index.ts'

let tp: TestPanel
let staffToken: string
let brandToken: string
let memberToken: string
let own: Brand
let other: Brand
let defaultBrand: Brand

const defaultTheme = { logo: null, primaryColor: '#1d4ed8', accentColor: '#0f766e' }

/** A data URL of `bytes` declared as `type`. */
const dataUrl = (type: string, bytes: Uint8Array | string) =>
  `data:${type};base64,${Buffer.from(bytes).toString('base64')}`

/** A real 1×1 PNG. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
/** The start of a JPEG (SOI, a JFIF APP0 marker) and its end. */
const jpeg = Uint8Array.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
  0x00, 0x00, 0xff, 0xd9,
])
/** A RIFF container of a lossless WebP. */
const webp = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([0x1a, 0, 0, 0]),
  Buffer.from('WEBPVP8L'),
  Buffer.from([0x0d, 0, 0, 0, 0x2f, 0, 0, 0, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0x00]),
])
const svg = (inner: string, attributes = '') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"${attributes}>${inner}</svg>`
const safeSvg = svg(
  '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient><path id="p" d="M0 0h10v10z"/></defs><rect width="10" height="10" fill="url(#g)" style="fill: url( \'#g\' )"/><use href="#p"/><use xlink:href="#p"/><text>Logo &amp; Co</text>',
)

async function createBrand(name: string): Promise<Brand> {
  const response = await tp.request('POST', '/api/v1/brands', { token: staffToken, body: { name } })
  expect(response.status).toBe(201)
  return (await response.json()) as Brand
}

function patch(id: string, body: unknown, token = staffToken): Promise<Response> {
  return tp.request('PATCH', `/api/v1/brands/${id}`, { token, body })
}

async function patched(id: string, body: unknown, token = staffToken): Promise<Brand> {
  const response = await patch(id, body, token)
  expect(response.status).toBe(200)
  return (await response.json()) as Brand
}

async function read(id: string): Promise<Brand> {
  const response = await tp.request('GET', `/api/v1/brands/${id}`, { token: staffToken })
  expect(response.status).toBe(200)
  return (await response.json()) as Brand
}

async function branding(query = ''): Promise<Branding> {
  const response = await tp.request('GET', `/api/v1/branding${query}`)
  expect(response.status).toBe(200)
  expect(response.headers.get('etag')).toBeTruthy()
  return (await response.json()) as Branding
}

beforeAll(async () => {
  tp = await createTestPanel({ standard: false, plugins: [brandsPlugin()] })
  staffToken = await tp.token()
  own = await createBrand('Own Hosting')
  other = await createBrand('Other Hosting')
  const brandStaff = await createTestUser(tp.panel.store.db, {
    email: 'theme-staff@example.test',
    staffRole: 'brand',
    brandId: own.id,
  })
  brandToken = await tp.token({ user: brandStaff })
  const member = await createTestUser(tp.panel.store.db, { email: 'member@example.test', staffRole: null })
  memberToken = await tp.token({ user: member })
  const list = await tp.request('GET', '/api/v1/brands?limit=100', { token: staffToken })
  defaultBrand = ((await list.json()) as Page<Brand>).items.find((brand) => brand.isDefault) as Brand
})
afterAll(() => tp.panel.close())

describe('the theme', () => {
  test('every brand starts with the default colours, no logo and no host names', () => {
    for (const brand of [own, other, defaultBrand]) {
      expect(brand.theme).toEqual(defaultTheme)
      expect(brand.hostnames).toEqual([])
    }
  })

  test('a partial change sets only what it names: colours in lower case, the rest kept', async () => {
    const brand = await createBrand('Partial Colours')
    const first = await patched(brand.id, { theme: { primaryColor: '#AABBCC' } })
    expect(first).toMatchObject({ name: 'Partial Colours', hostnames: [] })
    expect(first.theme).toEqual({ ...defaultTheme, primaryColor: '#aabbcc' })
    const second = await patched(brand.id, { theme: { accentColor: '#00Ff00' } })
    expect(second.theme).toEqual({ logo: null, primaryColor: '#aabbcc', accentColor: '#00ff00' })
    const renamed = await patched(brand.id, { name: 'Partial Colours Ltd' })
    expect(renamed.theme).toEqual(second.theme)
    expect(await read(brand.id)).toEqual(renamed)
  })

  test('a logo of each image type is stored as given; null removes it, leaving the colours', async () => {
    const brand = await createBrand('Logo Types')
    await patched(brand.id, { theme: { primaryColor: '#123456' } })
    for (const logo of [
      dataUrl('image/png', png),
      dataUrl('image/jpeg', jpeg),
      dataUrl('image/webp', webp),
      dataUrl('image/svg+xml', safeSvg),
    ]) {
      const changed = await patched(brand.id, { theme: { logo } })
      expect(changed.theme).toEqual({ ...defaultTheme, primaryColor: '#123456', logo })
    }
    // The type's case does not matter; it is stored in lower case.
    const upper = await patched(brand.id, { theme: { logo: dataUrl('IMAGE/PNG', png) } })
    expect(upper.theme.logo).toBe(dataUrl('image/png', png))
    const removed = await patched(brand.id, { theme: { logo: null } })
    expect(removed.theme).toEqual({ ...defaultTheme, primaryColor: '#123456' })
  })

  test('a logo of exactly 128 KiB is accepted, one byte more is 422 logo_too_large at body.theme.logo', async () => {
    const brand = await createBrand('Big Logo')
    const limit = Buffer.concat([png, Buffer.alloc(128 * 1024 - png.length)])
    expect(
      (await patched(brand.id, { theme: { logo: dataUrl('image/png', limit) } })).theme.logo,
    ).not.toBeNull()
    const over = Buffer.concat([limit, Buffer.alloc(1)])
    const response = await patch(brand.id, { theme: { logo: dataUrl('image/png', over) } })
    await expectFieldProblem(response, 422, 'logo_too_large', 'body.theme.logo')
  })

  test('a logo that is no base64 data URL of an accepted image type is 422 invalid_logo at body.theme.logo', async () => {
    for (const logo of [
      dataUrl('text/html', '<script>alert(1)</script>'),
      dataUrl('image/gif', 'GIF89a'),
      'https://cdn.example/logo.png',
      `data:image/png,${png.toString('hex')}`,
      'data:image/png;base64,iVBORw0KGgo', // not padded
      'data:image/png;base64,iVBO Rw0K',
      'data:image/png;base64,',
      '',
    ]) {
      const response = await patch(own.id, { theme: { logo } })
      await expectFieldProblem(response, 422, 'invalid_logo', 'body.theme.logo')
    }
  })

  test('a logo whose bytes are not the declared type is 422 logo_type_mismatch, and says what they are', async () => {
    const cases: [string, Uint8Array | string][] = [
      ['image/png', jpeg],
      ['image/jpeg', png],
      ['image/webp', png],
      ['image/png', 'not an image at all'],
      ['image/svg+xml', png],
      ['image/svg+xml', 'plain text, no svg element'],
      ['image/svg+xml', Uint8Array.from([0x3c, 0x73, 0x76, 0x67, 0x20, 0xff, 0xfe, 0x3e])],
    ]
    for (const [type, bytes] of cases) {
      const response = await patch(own.id, { theme: { logo: dataUrl(type, bytes) } })
      await expectFieldProblem(response, 422, 'logo_type_mismatch', 'body.theme.logo')
    }
    const response = await patch(own.id, { theme: { logo: dataUrl('image/png', jpeg) } })
    expect(((await response.json()) as { detail: string }).detail).toBe(
      'The logo is declared image/png, but its bytes are a JPEG image.',
    )
  })

  test('an SVG logo that could run or load anything is 422 unsafe_svg_logo at body.theme.logo', async () => {
    const unsafe = [
      svg('<script>alert(1)</script>'),
      svg('<svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script>'),
      svg('<rect width="1" height="1"/>', ' onload="alert(1)"'),
      svg('<rect width="1" height="1" ONCLICK = "alert(1)"/>'),
      svg('<a href="javascript:alert(1)"><rect width="1" height="1"/></a>'),
      svg('<a href="&#106;avascript&#x3a;alert(1)"><rect width="1" height="1"/></a>'),
      svg('<a href="java\tscript:alert(1)"><rect width="1" height="1"/></a>'),
      svg(
        '<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>',
      ),
      svg('<image href="https://tracker.example/pixel.png" width="1" height="1"/>'),
      svg('<use xlink:href="https://cdn.example/sprite.svg#icon"/>'),
      svg('<image href="data:image/png;base64,AAAA" width="1" height="1"/>'),
      svg('<rect width="1" height="1" style="fill: url(https://tracker.example/x)"/>'),
      svg('<style>@import "https://cdn.example/a.css";</style>'),
      svg('<set attributeName="href" to="https://example.com"/>'),
      svg('<iframe src="https://example.com"/>'),
      `<!DOCTYPE svg [<!ENTITY x "y">]>${svg('<text>&x;</text>')}`,
      `<?xml-stylesheet href="https://cdn.example/a.css"?>${svg('')}`,
    ]
    for (const text of unsafe) {
      const response = await patch(own.id, { theme: { logo: dataUrl('image/svg+xml', text) } })
      await expectFieldProblem(response, 422, 'unsafe_svg_logo', 'body.theme.logo')
    }
    const script = await patch(own.id, { theme: { logo: dataUrl('image/svg+xml', unsafe[0] ?? '') } })
    expect(((await script.json()) as { detail: string }).detail).toBe('The logo contains a <script> element.')
  })

  test('a colour that is not #rrggbb is 422 invalid_theme_color at its field', async () => {
    for (const colour of ['blue', '#12345', '#gggggg', 'rgb(1,2', '123456', '#12345g']) {
      const response = await patch(own.id, { theme: { primaryColor: colour } })
      await expectFieldProblem(response, 422, 'invalid_theme_color', 'body.theme.primaryColor')
    }
    const accent = await patch(own.id, { theme: { accentColor: '#1234zz' } })
    await expectFieldProblem(accent, 422, 'invalid_theme_color', 'body.theme.accentColor')
  })

  test('several faulty fields are one 422 validation_failed listing each where it is', async () => {
    const response = await patch(own.id, {
      theme: { primaryColor: 'red', accentColor: '#000000', shadow: true },
      hostnames: ['ok.example', 'bad host'],
    })
    const body = await expectProblem(response, 422, 'validation_failed')
    expect(body.errors?.map(({ location, code }) => [location, code]).sort()).toEqual([
      ['body.hostnames.1', 'invalid_brand_hostname'],
      ['body.theme.primaryColor', 'invalid_theme_color'],
      ['body.theme.shadow', 'unknown_field'],
    ])
    expect((await read(own.id)).theme.accentColor).toBe(own.theme.accentColor)
  })

  test('a body that changes nothing is 422 empty_brand_update at body', async () => {
    for (const body of [{}, { theme: {} }]) {
      await expectFieldProblem(await patch(own.id, body), 422, 'empty_brand_update', 'body')
    }
  })
})

describe('host names', () => {
  test('replace the list: lower case, without a trailing dot or repeats; [] clears it', async () => {
    const brand = await createBrand('Hosted')
    const set = await patched(brand.id, {
      hostnames: ['Panel.Hosted.Example', 'panel.hosted.example.', 'xn--bcher-kva.example', 'localhost'],
    })
    expect(set.hostnames).toEqual(['panel.hosted.example', 'xn--bcher-kva.example', 'localhost'])
    const replaced = await patched(brand.id, { hostnames: ['login.hosted.example'] })
    expect(replaced.hostnames).toEqual(['login.hosted.example'])
    expect(replaced.theme).toEqual(defaultTheme)
    expect((await branding('?host=panel.hosted.example')).brandId).toBe(defaultBrand.id)
    const cleared = await patched(brand.id, { hostnames: [] })
    expect(cleared.hostnames).toEqual([])
    expect((await branding('?host=login.hosted.example')).brandId).toBe(defaultBrand.id)
  })

  test('a host name that is no DNS name is 422 invalid_brand_hostname at its index', async () => {
    for (const bad of [
      'https://c.example',
      'c.example:8443',
      'c.example/login',
      '10.0.0.1',
      '[::1]',
      '-c.example',
      'c..example',
      'bücher.example',
      ' c.example',
      '',
      `${'a'.repeat(64)}.example`,
    ]) {
      const response = await patch(own.id, { hostnames: ['a.example', 'b.example', bad] })
      await expectFieldProblem(response, 422, 'invalid_brand_hostname', 'body.hostnames.2')
    }
  })

  test('more than 20 host names is 422 too_many_items', async () => {
    const hostnames = Array.from({ length: 21 }, (_, index) => `h${index}.own.example`)
    const response = await patch(own.id, { hostnames })
    await expectFieldProblem(response, 422, 'validation_failed', 'body.hostnames', 'too_many_items')
  })

  test('a host name of another brand is 409 brand_hostname_taken naming it, whatever its case', async () => {
    await patched(other.id, { hostnames: ['panel.other.example'] })
    const response = await patch(own.id, { hostnames: ['panel.own.example', 'PANEL.Other.example'] })
    const body = await expectProblem(response, 409, 'brand_hostname_taken')
    expect((body as unknown as { detail: string }).detail).toBe(
      'Another brand already has the host name panel.other.example.',
    )
    expect(body.errors).toEqual([
      expect.objectContaining({ location: 'body.hostnames.1', code: 'brand_hostname_taken' }),
    ])
    // Nothing of the refused change was kept; the brand's own names are its to set again.
    expect((await read(own.id)).hostnames).toEqual([])
    expect(
      (await patched(other.id, { hostnames: ['panel.other.example', 'www.other.example'] })).hostnames,
    ).toEqual(['panel.other.example', 'www.other.example'])
  })
})

describe('who may change a brand', () => {
  test('brand staff change their own brand’s theme and host names', async () => {
    const logo = dataUrl('image/png', png)
    const brand = await patched(
      own.id,
      { theme: { logo, primaryColor: '#112233' }, hostnames: ['panel.own.example'] },
      brandToken,
    )
    expect(brand).toMatchObject({
      id: own.id,
      theme: { logo, primaryColor: '#112233', accentColor: '#0f766e' },
      hostnames: ['panel.own.example'],
    })
  })

  test('brand staff changing another brand get 404, and it stays as it was', async () => {
    const before = await read(other.id)
    const response = await patch(other.id, { theme: { primaryColor: '#000000' } }, brandToken)
    await expectProblem(response, 404, 'not_found')
    expect(await read(other.id)).toEqual(before)
  })

  test('a member is refused with 403 staff_only', async () => {
    const response = await patch(own.id, { theme: { primaryColor: '#000000' } }, memberToken)
    await expectProblem(response, 403, 'staff_only')
  })

  test('each change is audited as brand.update with what changed, the logo only as changed or removed', async () => {
    const brand = await createBrand('Audited')
    const logo = dataUrl('image/png', png)
    await patched(brand.id, { theme: { logo, accentColor: '#ABCDEF' }, hostnames: ['audited.example'] })
    await patched(brand.id, { theme: { logo: null, primaryColor: '#1d4ed8' }, name: 'Audited Ltd' })
    const response = await tp.request('GET', `/api/v1/audit?subject=${brand.id}&action=brand.update`, {
      token: staffToken,
    })
    expect(response.status).toBe(200)
    const entries = ((await response.json()) as Page<{ details: Record<string, unknown> }>).items
    // Newest first; the primary colour given was the one it had, so it is not said to have changed.
    expect(entries.map((entry) => entry.details)).toEqual([
      { name: 'Audited Ltd', logo: 'removed' },
      { logo: 'changed', accentColor: '#abcdef', hostnames: ['audited.example'] },
    ])
    expect(JSON.stringify(entries)).not.toContain('base64')
  })
})

describe('GET /api/v1/branding', () => {
  let themed: Brand
  beforeAll(async () => {
    const brand = await createBrand('Public Face')
    themed = await patched(brand.id, {
      theme: { logo: dataUrl('image/svg+xml', safeSvg), primaryColor: '#aa0000', accentColor: '#00aa00' },
      hostnames: ['login.public.example', 'panel.public.example'],
    })
  })

  const answerOf = (brand: Brand): Branding => ({ brandId: brand.id, name: brand.name, theme: brand.theme })

  test('with no credentials and nothing named, shows the default brand', async () => {
    expect(await branding()).toEqual(answerOf(defaultBrand))
  })

  test('shows the brand that has the host name, in any case and whatever the port', async () => {
    for (const host of [
      'login.public.example',
      'PANEL.Public.Example',
      'panel.public.example:8443',
      'panel.public.example.',
    ])
      expect(await branding(`?host=${encodeURIComponent(host)}`)).toEqual(answerOf(themed))
  })

  test('shows the brand named by brandId when no brand has the host; the host wins over brandId', async () => {
    expect(await branding(`?brandId=${themed.id}`)).toEqual(answerOf(themed))
    expect(await branding(`?host=unknown.example&brandId=${themed.id}`)).toEqual(answerOf(themed))
    const theirs = await read(own.id)
    expect(await branding(`?host=login.public.example&brandId=${own.id}`)).toEqual(answerOf(themed))
    expect(await branding(`?brandId=${own.id}`)).toEqual(answerOf(theirs))
  })

  test('an unknown host, or an unknown or malformed brandId, shows the default brand', async () => {
    for (const query of [
      '?host=nobody.example',
      '?host=%5B%3A%3A1%5D%3A3000',
      '?host=',
      '?brandId=brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
      '?brandId=nonsense',
      '?host=nobody.example&brandId=brd_01JDQ3V6Y4T1ZK0M2N5P7R9S8W',
    ])
      expect(await branding(query)).toEqual(answerOf(defaultBrand))
  })

  test('reveals nothing but the id, name and theme', async () => {
    const answer = (await branding('?host=login.public.example')) as unknown as Record<string, unknown>
    expect(Object.keys(answer).sort()).toEqual(['brandId', 'name', 'theme'])
    expect(Object.keys(answer.theme as object).sort()).toEqual(['accentColor', 'logo', 'primaryColor'])
    expect(JSON.stringify(answer)).not.toContain('panel.public.example')
  })

  test('answers 304 to its ETag while the theme stays, and the new theme once it changes', async () => {
    const path = '/api/v1/branding?host=login.public.example'
    const etag = (await tp.request('GET', path)).headers.get('etag') ?? ''
    const again = await tp.request('GET', path, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    const changed = await patched(themed.id, { theme: { accentColor: '#0000aa' } })
    const fresh = await tp.request('GET', path, { headers: { 'if-none-match': etag } })
    expect(fresh.status).toBe(200)
    expect(((await fresh.json()) as Branding).theme).toEqual(changed.theme)
  })

  test('a query parameter it does not know is 422 unknown_field', async () => {
    const response = await tp.request('GET', '/api/v1/branding?hostname=login.public.example')
    await expectFieldProblem(response, 422, 'validation_failed', 'query.hostname', 'unknown_field')
  })

  test('is in the OpenAPI document: public, with its query and the Branding schema', async () => {
    const document = (await (await tp.request('GET', '/api/docs')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            security: unknown[]
            parameters: { name: string }[]
            responses: Record<string, { content: Record<string, { schema: unknown }> }>
          }
        >
      >
      components: { schemas: Record<string, { properties: Record<string, unknown> }> }
    }
    const operation = document.paths['/api/v1/branding']?.get
    expect(operation?.security).toEqual([])
    expect(operation?.parameters.map((parameter) => parameter.name).sort()).toEqual([
      'If-None-Match',
      'brandId',
      'host',
    ])
    expect(operation?.responses['200']?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Branding',
    })
    expect(Object.keys(document.components.schemas.Branding?.properties ?? {}).sort()).toEqual([
      'brandId',
      'name',
      'theme',
    ])
    expect(Object.keys(document.components.schemas.Brand?.properties ?? {})).toEqual(
      expect.arrayContaining(['theme', 'hostnames']),
    )
  })
})
