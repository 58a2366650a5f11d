// Checks answers of the running service against its OpenAPI document: every answer a test
// receives through the support's fetch helpers must be one the document describes (status,
// media type, body schema, declared headers), or the request fails. The answer's description is
// found by listener, method, path template, status and media type in the dereferenced document;
// its schemas are compiled once with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect).
//
// Stricter than the document itself in one way: an object schema that lists its properties and
// says nothing about others is taken as closed here, so a member the document does not describe
// fails a test (clients may still accept unknown members; the document must not lag the code).
import { dereference } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Config } from '../../src/config/config.js';
import { METHODS } from '../../src/http/openapi/components.js';
import { openApiDocument, type OpenApiDocument } from '../../src/app/openapiDocument.js';
import type { Header, MediaType, Method, Operation, PathItem, Response, Schema } from '../../src/http/openapi/types.js';

export type Listener = 'management' | 'public';

// The global Response, not the document's Response Object.
type Response_ = globalThis.Response;

/** The document as the tests check it: the public server's URL plays no part in matching. */
export const testDocument = (): OpenApiDocument =>
  openApiDocument({ publicUrl: 'http://localhost:8080' as Config['publicUrl'], presentationExpiresIn: 300, presentationExpiresInMin: 30, presentationExpiresInMax: 3600 });

/** The listeners a path item is served on: the management one unless its servers say otherwise. */
export const listenersOf = (item: Pick<PathItem, 'servers'>): readonly Listener[] =>
  item.servers === undefined ? ['management'] : item.servers.map((server) => (server.url === '/' ? 'management' : 'public'));

interface Route {
  readonly template: string;
  readonly pattern: RegExp;
  readonly item: PathItem;
}

const patternOf = (template: string): RegExp =>
  new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A copy of `schema` whose described objects admit no undescribed members. */
const closedObjects = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(closedObjects);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      // Under `properties` the keys are member names, not keywords.
      key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, member]) => [name, closedObjects(member)])) : closedObjects(value),
    ]),
  );
  const isDescribedObject = copy['type'] === 'object' && typeof copy['properties'] === 'object' && !('additionalProperties' in copy);
  return isDescribedObject ? { ...copy, additionalProperties: false } : copy;
};

// Strict: an unknown keyword (a typo in the document) is an error, not an ignored annotation.
const newAjv = (): Ajv2020 => addFormats(new Ajv2020({ allErrors: true, strict: true, strictTypes: false }));

const dereferenced = async (): Promise<OpenApiDocument> => (await dereference(structuredClone(testDocument()) as never)) as unknown as OpenApiDocument;

/** Every schema in the document (under a `schema` member) with where it is, and every media type's examples. */
const schemasOf = (value: unknown, at: string, found: Map<object, string>, examples: { at: string; schema: object; value: unknown }[]): void => {
  if (typeof value !== 'object' || value === null) return;
  const media = value as { schema?: unknown; examples?: Record<string, { value: unknown }> };
  if (typeof media.schema === 'object' && media.schema !== null && media.examples) {
    for (const [name, example] of Object.entries(media.examples)) examples.push({ at: `${at}/examples/${name}`, schema: media.schema, value: example.value });
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === 'schema' && typeof child === 'object' && child !== null && !found.has(child)) found.set(child, `${at}/schema`);
    schemasOf(child, `${at}/${key}`, found, examples);
  }
};

/** What is wrong with the document's schemas: any ajv cannot compile, any example its schema refuses. */
export const schemaProblems = async (): Promise<string[]> => {
  const document = await dereferenced();
  const found = new Map<object, string>(Object.entries(document.components.schemas).map(([name, schema]) => [schema as object, `#/components/schemas/${name}`]));
  const examples: { at: string; schema: object; value: unknown }[] = [];
  schemasOf(document.paths, '#/paths', found, examples);
  const ajv = newAjv();
  const uncompilable = [...found].flatMap(([schema, at]) => {
    try {
      ajv.compile(schema);
      return [];
    } catch (err) {
      return [`${at}: ${(err as Error).message}`];
    }
  });
  const refused = examples.flatMap(({ at, schema, value }) => {
    const validate = ajv.compile(closedObjects(schema) as Schema);
    return validate(value) ? [] : [`${at}: ${ajv.errorsText(validate.errors)}`];
  });
  return [...uncompilable, ...refused];
};

class Contract {
  private readonly ajv = newAjv();
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  constructor(private readonly routes: Readonly<Record<Listener, readonly Route[]>>, private readonly problem: Schema) {}

  static async load(): Promise<Contract> {
    const document = await dereferenced();
    const routes: Record<Listener, Route[]> = { management: [], public: [] };
    // Concrete paths before templated ones, as OpenAPI matches them (and koa-router would reach them).
    const templates = Object.keys(document.paths).sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')));
    for (const template of templates) {
      const item = document.paths[template]!;
      for (const listener of listenersOf(item)) routes[listener].push({ template, pattern: patternOf(template), item });
    }
    return new Contract(routes, document.components.schemas['Problem'] as Schema);
  }

  private check(schema: Schema, value: unknown): string[] {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(closedObjects(schema) as Schema);
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params['additionalProperty'])})` : ''}`);
  }

  /** What is wrong with one answer; empty when the document describes it. */
  async mismatches(listener: Listener, method: string, url: string, response: Response_): Promise<string[]> {
    const path = new URL(url).pathname;
    const verb = method.toLowerCase() as Method | 'options';
    const candidates = this.routes[listener].filter((r) => r.pattern.test(path));
    const route = verb === 'options' ? undefined : candidates.find((r) => r.item[verb] !== undefined || (verb === 'head' && r.item.get !== undefined));
    const body = verb === 'head' || response.status === 304 ? undefined : await response.clone().text();
    if (!route || verb === 'options') return this.unrouted(listener, verb, candidates, response, body);
    const operation = (route.item[verb] ?? route.item.get) as Operation;
    const described = operation.responses[String(response.status)] as Response | undefined;
    if (!described) return [`status ${response.status} is not described for ${method.toUpperCase()} ${route.template}`];
    return [...this.headerMismatches(described, response), ...this.contentMismatches(described, response, body)];
  }

  /**
   * A path no operation has is 404 and a method the path does not have 405 with Allow, both
   * problems; OPTIONS on a path is 200 with Allow and no body.
   */
  private unrouted(listener: Listener, verb: Method | 'options', candidates: readonly Route[], response: Response_, body: string | undefined): string[] {
    // The management listener authenticates before routing.
    const expected = listener === 'management' && response.status === 401 ? 401 : candidates.length === 0 ? 404 : verb === 'options' ? 200 : 405;
    if (response.status !== expected) return [`expected ${expected} for a request no operation describes, got ${response.status}`];
    if (expected === 401 || expected === 404) return this.problemMismatches(response, body);
    const methods = new Set(candidates.flatMap((r) => METHODS.filter((m) => r.item[m] !== undefined).flatMap((m) => (m === 'get' ? ['GET', 'HEAD'] : [m.toUpperCase()]))));
    const allow = new Set((response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter((m) => m !== ''));
    const same = methods.size === allow.size && [...methods].every((m) => allow.has(m));
    const wrongAllow = same ? [] : [`Allow is "${response.headers.get('allow')}", the document has ${[...methods].join(', ')}`];
    if (expected === 200) return body ? [...wrongAllow, `a body where none is expected: ${body.slice(0, 200)}`] : wrongAllow;
    return [...this.problemMismatches(response, body), ...wrongAllow];
  }

  private problemMismatches(response: Response_, body: string | undefined): string[] {
    if (mediaTypeOf(response) !== 'application/problem+json') return [`expected application/problem+json, got ${response.headers.get('content-type')}`];
    return body === undefined ? [] : this.jsonMismatches(this.problem, body);
  }

  private headerMismatches(described: Response, response: Response_): string[] {
    return Object.entries(described.headers ?? {}).flatMap(([name, header]) => {
      const { required, schema } = header as Header;
      const value = response.headers.get(name);
      if (value === null) return required ? [`header ${name} is missing`] : [];
      return this.check(schema, value).map((e) => `header ${name}: ${e}`);
    });
  }

  private contentMismatches(described: Response, response: Response_, body: string | undefined): string[] {
    const content = described.content;
    if (!content) return body === undefined || body === '' ? [] : [`a body where the document describes none: ${body.slice(0, 200)}`];
    const type = mediaTypeOf(response);
    const media = (content[type] ?? content['*/*']) as MediaType | undefined;
    if (!media) return [`media type ${type} is not described (${Object.keys(content).join(', ')})`];
    if (body === undefined) return [];
    if (isJson(type)) return this.jsonMismatches(media.schema, body);
    return media.schema['type'] === 'string' && media.schema['contentMediaType'] === undefined ? this.check(media.schema, body).map((e) => `body: ${e}`) : [];
  }

  private jsonMismatches(schema: Schema, body: string): string[] {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`a body that is not JSON: ${body.slice(0, 200)}`];
    }
    return this.check(schema, value).map((e) => `body ${e}`);
  }
}

const mediaTypeOf = (response: Response_): string => (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (type: string): boolean => type === 'application/json' || type.endsWith('+json');

let contract: Promise<Contract> | undefined;

/** Throws when the document does not describe `response`, the answer to `method url` on `listener`. */
export const assertDocumented = async (listener: Listener, method: string, url: string, response: Response_): Promise<void> => {
  const wrong = await (await (contract ??= Contract.load())).mismatches(listener, method, url, response);
  if (wrong.length === 0) return;
  const type = response.headers.get('content-type') ?? 'no content type';
  throw new Error(`OpenAPI: ${listener} ${method.toUpperCase()} ${new URL(url).pathname} answered ${response.status} (${type}), which the document does not describe:\n  ${wrong.join('\n  ')}`);
};

let checking = true;

/**
 * For the benchmarks, which drive the service through these helpers in their own process:
 * checking answers there would be measured as the service's time.
 */
export const stopCheckingAnswers = (): void => {
  checking = false;
};

/** fetch, failing on any answer the OpenAPI document does not describe. */
export const documentedFetch =
  (listener: Listener) =>
  async (url: string, init?: RequestInit): Promise<Response_> => {
    const response = await fetch(url, init);
    if (checking) await assertDocumented(listener, init?.method ?? 'GET', url, response);
    return response;
  };
