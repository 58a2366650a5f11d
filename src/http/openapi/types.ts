// The few OpenAPI 3.1 shapes the document modules build. Schemas are JSON Schema 2020-12 (the
// OpenAPI 3.1 dialect), kept as plain JSON: the document is served as it is written.
export type Schema = { readonly [keyword: string]: unknown };

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly description?: string;
  readonly schema: Schema;
}

export interface Header {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: Schema;
}

export interface MediaType {
  readonly schema: Schema;
  readonly examples?: Readonly<Record<string, { readonly summary?: string; readonly value: unknown }>>;
}

export type Content = Readonly<Record<string, MediaType>>;

export interface Response {
  readonly description: string;
  readonly headers?: Readonly<Record<string, Header | Reference>>;
  readonly content?: Content;
}

// A type alias, not an interface, so that a reference also passes where a schema is expected.
export type Reference = { readonly $ref: string; readonly description?: string };

export interface RequestBody {
  readonly required?: boolean;
  readonly description?: string;
  readonly content: Content;
}

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly security: readonly Readonly<Record<string, readonly string[]>>[];
  readonly parameters?: readonly (Parameter | Reference)[];
  readonly requestBody?: RequestBody;
  readonly responses: Readonly<Record<string, Response | Reference>>;
}

export interface Server {
  readonly url: string;
  readonly description: string;
}

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head';

export type PathItem = { readonly servers?: readonly Server[]; readonly parameters?: readonly (Parameter | Reference)[] } & {
  readonly [method in Method]?: Operation;
};

/** Path template (`/drafts/{id}`) -> what it serves. */
export type Paths = Readonly<Record<string, PathItem>>;

export interface Tag {
  readonly name: string;
  readonly description: string;
}

/**
 * One area of the API (verification, issuance, resources, tenancy...): its routes on each
 * listener and the schemas they name. The document puts the public listener's server on the
 * public paths; a path on both listeners must be described the same on both.
 */
export interface Area {
  readonly tags: readonly Tag[];
  readonly management?: Paths;
  readonly public?: Paths;
  readonly schemas?: Readonly<Record<string, Schema>>;
}
