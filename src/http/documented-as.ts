/**
 * A route schema's mark on a field that its validator deliberately leaves loose (e.g. `pii`,
 * which is validated in code): the OpenAPI document shows the named component there instead
 * (openapi.ts). For Ajv it is an annotation, never a check.
 */
export const DOCUMENTED_AS = 'x-documented-as';

/** Registers DOCUMENTED_AS with the validator. */
export function addDocumentedAs(ajv: { addKeyword(keyword: string): unknown }): void {
  ajv.addKeyword(DOCUMENTED_AS);
}
