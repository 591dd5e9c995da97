// Holds every answer an end-to-end test receives to the server's own OpenAPI document: the status must be one the
// operation documents, and the body must match the schema of its media type. Fetched once per server.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';

// ajv-formats is CommonJS with a `default` export.
const addFormats = ((formatsPlugin as unknown as { default?: typeof formatsPlugin }).default ??
  formatsPlugin) as unknown as (ajv: Ajv2020) => void;

export const OPENAPI_PATH = '/api/v1/openapi.json';

const COMPONENTS_ID = 'urn:hostdir:openapi';

/** A copy of the schema whose local references (#/components/…) point into the document's components. */
function withDocumentRefs(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')
      ? `${COMPONENTS_ID}${value}`
      : value,
  ) as Record<string, unknown>;
}

interface MediaType {
  schema?: Record<string, unknown>;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Record<string, unknown>> };
}

interface Contract {
  document: Document;
  /** documented paths as regular expressions, literal paths first */
  routes: { template: string; pattern: RegExp }[];
  validator(schema: Record<string, unknown>): ValidateFunction;
  anyProblem: ValidateFunction;
}

const contracts = new Map<string, Promise<Contract>>();

function load(baseUrl: string): Promise<Contract> {
  let contract = contracts.get(baseUrl);
  if (!contract) {
    contract = (async () => {
      const response = await fetch(`${baseUrl}${OPENAPI_PATH}`);
      if (response.status !== 200) throw new Error(`GET ${OPENAPI_PATH} answered ${response.status}`);
      const document = (await response.json()) as Document;
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      // The named schemas, referred to as #/components/schemas/Name, resolve inside the document itself.
      ajv.addSchema({ $id: COMPONENTS_ID, components: document.components ?? {} });
      const cache = new Map<Record<string, unknown>, ValidateFunction>();
      const validator = (schema: Record<string, unknown>) => {
        let validate = cache.get(schema);
        if (!validate) {
          validate = ajv.compile({ $id: `${COMPONENTS_ID}/answer-${cache.size}`, ...withDocumentRefs(schema) });
          cache.set(schema, validate);
        }
        return validate;
      };
      const routes = Object.keys(document.paths)
        .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
        .map((template) => ({
          template,
          pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
        }));
      // Unknown paths and methods are answered by the app, not by an operation.
      const anyProblem = ajv.compile({
        type: 'object',
        required: ['type', 'title', 'status', 'code', 'detail', 'instance', 'request_id'],
        properties: {
          code: {
            enum: [
              'BAD_REQUEST',
              'NOT_FOUND',
              'METHOD_NOT_ALLOWED',
              'REQUEST_TIMEOUT',
              'RATE_LIMITED',
              'HEADERS_TOO_LARGE',
              'SERVICE_UNAVAILABLE',
            ],
          },
        },
      });
      return { document, routes, validator, anyProblem };
    })();
    contracts.set(baseUrl, contract);
    // A failed fetch is not cached: the next call tries again.
    contract.catch(() => contracts.delete(baseUrl));
  }
  return contract;
}

/**
 * Fetches the server's document as soon as it is up, so that answers received while it stops (or after it is
 * gone) are still checked against it.
 */
export async function loadDocument(baseUrl: string): Promise<void> {
  await load(baseUrl);
}

export interface ReceivedAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

function mediaTypeOf(headers: Headers): string {
  return (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function mismatch(method: string, path: string, answer: ReceivedAnswer, why: string): Error {
  return new Error(
    `${method} ${path} → ${answer.status} does not match the OpenAPI document: ${why}\n${answer.text.slice(0, 2000)}`,
  );
}

/**
 * Throws when the answer is not one the document describes. The document covers the API (/api/…) and the probes;
 * the admin API and the directory's HTML pages are not part of it.
 */
export async function checkAgainstDocument(
  baseUrl: string,
  method: string,
  path: string,
  answer: ReceivedAnswer,
): Promise<void> {
  const pathname = new URL(path, 'http://x').pathname;
  const documented =
    (pathname.startsWith('/api/') && pathname !== OPENAPI_PATH) ||
    ['/healthz', '/readyz', '/metrics'].includes(pathname);
  if (!documented) return;
  const contract = await load(baseUrl);
  const verb = method.toLowerCase();
  const route = contract.routes.find(({ pattern }) => pattern.test(pathname));
  const operation = route ? contract.document.paths[route.template]?.[verb === 'head' ? 'get' : verb] : undefined;

  if (!operation) {
    if (![400, 404, 405, 408, 429, 431, 503].includes(answer.status)) {
      throw mismatch(
        method,
        path,
        answer,
        route ? `${method} is not documented on ${route.template}` : 'the path is not documented',
      );
    }
    if (verb !== 'head' && !contract.anyProblem(answer.body)) {
      throw mismatch(
        method,
        path,
        answer,
        `not a problem the app answers for any path: ${JSON.stringify(contract.anyProblem.errors)}`,
      );
    }
    return;
  }

  const responses = operation.responses;
  const documentedAnswer =
    responses[String(answer.status)] ?? responses[`${String(answer.status)[0]}XX`] ?? responses.default;
  if (!documentedAnswer) {
    throw mismatch(
      method,
      path,
      answer,
      `status ${answer.status} is not documented (documented: ${Object.keys(responses).join(', ')})`,
    );
  }
  if (verb === 'head' || answer.text === '') return;
  const mediaType = mediaTypeOf(answer.headers);
  const content = documentedAnswer.content?.[mediaType];
  if (!content) {
    throw mismatch(method, path, answer, `media type "${mediaType}" is not documented for ${answer.status}`);
  }
  if (!content.schema) return;
  const value = mediaType.endsWith('json') ? answer.body : answer.text;
  const validate = contract.validator(content.schema);
  if (!validate(value)) {
    throw mismatch(method, path, answer, JSON.stringify(validate.errors, null, 1).slice(0, 3000));
  }
}
