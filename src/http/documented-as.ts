/**
 * Annotations a route schema carries for the OpenAPI document only (openapi.ts); for Ajv they
 * are annotations, never checks.
 * - DOCUMENTED_AS marks a field that the validator deliberately leaves loose (e.g. `pii`, which is
 *   validated in code): the document shows the named component there instead.
 * - OPTIONAL_BODY marks a body that may be left out altogether (see optionalBody in problem.ts):
 *   the document says the request body is not required.
 */
export const DOCUMENTED_AS = 'x-documented-as';
export const OPTIONAL_BODY = 'x-optional-body';

/** Registers the annotations with the validator. */
export function addDocumentedAs(ajv: { addKeyword(keyword: string): unknown }): void {
  ajv.addKeyword(DOCUMENTED_AS);
  ajv.addKeyword(OPTIONAL_BODY);
}
