// What the schema validator found wrong with a request, as problem entries: one per parameter (or body field), in
// words a person acts on. A value outside a list of allowed values (a union of constants in the schema) is named
// with the values allowed, instead of one "must be equal to constant" per value the validator tried.
import type { FastifySchemaValidationError } from 'fastify';
import { notOneOf, type ProblemEntry } from './problems.js';

/** The parameter (or dotted body path) an issue is about. */
function placeOf(issue: FastifySchemaValidationError): string {
  return (
    issue.instancePath.replace(/^\//, '').replaceAll('/', '.') ||
    String((issue.params as { missingProperty?: string }).missingProperty ?? '')
  );
}

/** The values a list of issues about one place allows, when they are those of a union of constants or an enum. */
function allowedValues(issues: FastifySchemaValidationError[]): string[] | null {
  const allowed: string[] = [];
  for (const issue of issues) {
    const params = issue.params as { allowedValue?: unknown; allowedValues?: unknown[] };
    if (issue.keyword === 'const') allowed.push(String(params.allowedValue));
    else if (issue.keyword === 'enum') allowed.push(...(params.allowedValues ?? []).map(String));
    else if (issue.keyword !== 'anyOf') return null;
  }
  return allowed.length > 0 ? allowed : null;
}

/**
 * One entry per place the issues name, in the order they were found. `valueOf` gives the value as sent, to quote
 * it back; a body's entries carry a JSON Pointer, a query's or header's the parameter.
 */
export function validationEntries(
  issues: readonly FastifySchemaValidationError[],
  where: 'body' | 'request',
  valueOf: (place: string) => string | undefined,
): ProblemEntry[] {
  const byPlace = new Map<string, FastifySchemaValidationError[]>();
  for (const issue of issues) {
    const place = placeOf(issue);
    const found = byPlace.get(place);
    if (found) found.push(issue);
    else byPlace.set(place, [issue]);
  }
  return [...byPlace].map(([place, found]) => {
    const allowed = allowedValues(found);
    const value = valueOf(place);
    const entry = allowed
      ? { code: 'enum', detail: notOneOf(value, allowed) }
      : // A union of other kinds fails every branch; the first branch's reason is the one to show.
        {
          code: found[0]!.keyword,
          detail: `${value === undefined ? '' : `“${value}” `}${found[0]!.message ?? 'is invalid'}`,
        };
    return where === 'body'
      ? { pointer: place ? `/${place.replaceAll('.', '/')}` : '', ...entry }
      : { parameter: place, ...entry };
  });
}
