/**
 * Fastify's own schema compilers (Ajv for requests, fast-json-stringify for responses), made to
 * compile each route's schema on the route's first use instead of all at `ready`. Compiling every
 * schema of every route was about a sixth of start-up; a route that is never called never pays.
 *
 * Behaviour is otherwise the default's: same compilers, same options, same shared schemas. One
 * difference of Fastify's: with a custom compiler factory it no longer lower-cases the property
 * names of `headers` schemas, so those must be written in lower case (ours are).
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;

type Factory<F> = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => F;
interface RouteSchema {
  schema: unknown;
  method: string;
  url: string;
  httpPart?: string;
}
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;

/** The compiler factories to pass as Fastify's `schemaController.compilersFactory`. */
export function lazyCompilers(): CompilersFactory {
  const factories = {
    buildValidator: lazyFactory<Validate>(AjvCompiler() as Factory<Validate>, (compile) => {
      // Fastify reads the failure's details from the function's `errors`, as Ajv leaves them.
      const validate: Validate = (data) => {
        const real = compile();
        const ok = real(data);
        validate.errors = real.errors;
        return ok;
      };
      return validate;
    }),
    buildSerializer: lazyFactory<Serialize>(
      SerializerSelector() as Factory<Serialize>,
      (compile) => (data) => compile()(data),
    ),
  };
  return factories as unknown as CompilersFactory;
}

/**
 * Wraps a compiler factory: the factory itself (which builds the Ajv instance and adds the shared
 * schemas) and each route's compilation run when first needed, once.
 */
function lazyFactory<F>(factory: Factory<F>, wrap: (compile: () => F) => F): Factory<F> {
  return (externalSchemas, options) => {
    let compiler: ((route: RouteSchema) => F) | undefined;
    return (route) => {
      let compiled: F | undefined;
      return wrap(() => {
        if (compiled === undefined) {
          compiler ??= factory(externalSchemas, options);
          compiled = compiler(route);
        }
        return compiled;
      });
    };
  };
}
