// What the served OpenAPI document says of an operation, as the kit's declared pages use it: the scope it needs (so
// a form or a button is shown only to those who may use it) and the fields of its JSON body (so a create form is
// made from the operation rather than written again beside it). Pure functions on the document (api-document.ts
// reads it).

/** The part of a JSON Schema (as the kernel writes them) the fields are made from. */
export interface JsonSchema {
  readonly $ref?: string
  readonly type?: string | readonly string[]
  readonly enum?: readonly unknown[]
  readonly const?: unknown
  readonly anyOf?: readonly JsonSchema[]
  readonly title?: string
  readonly description?: string
  readonly default?: unknown
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: readonly string[]
}

interface Operation {
  readonly parameters?: readonly { readonly name: string; readonly in: string }[]
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[]
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: JsonSchema }>> }
}

/** The served document, as far as the kit reads it. */
export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> }
}

/** What an input of a create form is: its body field, label, hint, and kind. */
export interface BodyField {
  /** The body field it sends, where a refusal of `body.<name>` shows. */
  readonly name: string
  readonly label: string
  /** Its schema's description, whose `code` spans a form shows as code. */
  readonly hint?: string
  /**
   * `number` sends a number, `checkbox` a boolean, `yes-no` a boolean or nothing (an optional boolean whose default
   * the document does not give), `customer` is the customer select.
   */
  readonly type: 'text' | 'number' | 'checkbox' | 'yes-no' | 'customer'
  /** A select among these values (an optional field's first is `''`, sending nothing). */
  readonly options?: readonly string[]
  /** What it starts at: the schema's `default` (a checkbox is checked when it is `true`). */
  readonly initial?: string | boolean
}

const operationOf = (document: OpenApiDocument, method: string, path: string): Operation => {
  const operation = document.paths[path]?.[method.toLowerCase()]
  if (!operation) throw new Error(`The API document has no ${method.toUpperCase()} ${path}`)
  return operation
}

/** The scope an operation needs (its first security requirement's), or null for a public one. */
export function operationScope(document: OpenApiDocument, method: string, path: string): string | null {
  const [requirement] = operationOf(document, method, path).security ?? []
  return Object.values(requirement ?? {})[0]?.[0] ?? null
}

/** Whether an operation takes an `Idempotency-Key` (every creating POST says whether it does). */
export function takesIdempotencyKey(document: OpenApiDocument, method: string, path: string): boolean {
  return (operationOf(document, method, path).parameters ?? []).some(
    (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
  )
}

/** The schema a `$ref` names, the schema itself otherwise. */
const resolved = (document: OpenApiDocument, schema: JsonSchema): JsonSchema =>
  schema.$ref ? (document.components?.schemas?.[schema.$ref.split('/').at(-1) ?? ''] ?? {}) : schema

/** `siteId` → `Site id`: a label for a field whose schema has no title. */
const labelOf = (name: string) =>
  name
    .replace(
      /([a-z0-9])([A-Z])/g,
      (_, before: string, capital: string) => `${before} ${capital.toLowerCase()}`,
    )
    .replace(/^./, (first) => first.toUpperCase())

/** The values of an enum, or of a union of constants, as texts. */
const valuesOf = (schema: JsonSchema): string[] | undefined =>
  schema.enum?.map(String) ??
  (schema.anyOf?.every((member) => member.const !== undefined)
    ? schema.anyOf.map((member) => String(member.const))
    : undefined)

function fieldOf(name: string, schema: JsonSchema, required: boolean): BodyField | null {
  const types = [schema.type ?? []].flat().filter((type) => type !== 'null')
  const initial = ['string', 'number', 'boolean'].includes(typeof schema.default)
    ? { initial: typeof schema.default === 'boolean' ? schema.default : String(schema.default) }
    : {}
  const base = { name, label: schema.title ?? labelOf(name), hint: schema.description, ...initial }
  // `customerId` is the kernel's name of the customer a resource belongs to, everywhere.
  if (name === 'customerId') return { ...base, label: 'Customer', type: 'customer' }
  const values = valuesOf(schema)
  if (values) return { ...base, type: 'text', options: required ? values : ['', ...values] }
  if (types.length !== 1) return null
  if (types[0] === 'integer' || types[0] === 'number') return { ...base, type: 'number' }
  // A checkbox always says yes or no: without a known default, leaving it alone must send nothing.
  if (types[0] === 'boolean')
    return { ...base, type: required || typeof schema.default === 'boolean' ? 'checkbox' : 'yes-no' }
  return types[0] === 'string' ? { ...base, type: 'text' } : null
}

/**
 * The inputs of an operation's JSON body, in its order: a text, number or checkbox by the field's type (an optional
 * boolean without a default: Default, Yes or No), a select
 * of an enum's values, the customer select for `customerId`; labelled by the field's title (else its name in
 * words), hinted by its description, and starting at its default. Fields a form cannot fill in one input (objects, lists) are left out.
 */
export function bodyFields(document: OpenApiDocument, method: string, path: string): BodyField[] {
  const schema = operationOf(document, method, path).requestBody?.content?.['application/json']?.schema
  const body = schema ? resolved(document, schema) : {}
  const required = new Set(body.required ?? [])
  return Object.entries(body.properties ?? {}).flatMap(([name, property]) => {
    const field = fieldOf(name, resolved(document, property), required.has(name))
    return field ? [field] : []
  })
}
