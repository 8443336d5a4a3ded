/**
 * Loads the Kafka backend (kafka-backend.ts and, through it, @platformatic/kafka) once, without the library's
 * import-time validator compilation.
 *
 * Why: importing @platformatic/kafka 1.35 compiles 38 ajv validators at module scope (its clients' options.js,
 * one per option set of every Admin/Producer/Consumer method). A `--cpu-prof` of the bare import put about half its
 * ~0.6 s of CPU there (ajv's codegen and the `new Function` of each validator). With the library's default
 * `strict: false`, which crater keeps, the library runs only the consumer's group-options validator; the other 37
 * are never called, and every CLI command on a Kafka cluster paid for them. The package exports a single entry
 * point and has no option to skip or defer the compilation.
 *
 * How: for the duration of the import only, `compile` on the library's own Ajv class returns a validator that
 * compiles its schema on its first call and then behaves as the compiled one (same result, same `errors`). When
 * the import has evaluated, `compile` is ajv's again. Nothing in node_modules is changed; the library's schemas
 * are constants with no `$id`/`$ref` (so none needs another registered first). If the library's ajv cannot be
 * found (a future version without it), the import simply goes ahead as it is.
 */
import { createRequire } from 'node:module';

type Validate = ((this: unknown, ...args: unknown[]) => unknown) & { errors?: unknown };
type Compile = (this: object, schema: unknown, ...rest: unknown[]) => Validate;
interface AjvPrototype {
  compile: Compile;
}

type KafkaBackendModule = typeof import('./kafka-backend.js');

let loading: Promise<KafkaBackendModule> | undefined;

/** The Kafka backend's module, imported on the first call (validators deferred as described above). */
export function loadKafkaBackend(): Promise<KafkaBackendModule> {
  loading ??= importDeferringValidators(() => import('./kafka-backend.js'));
  return loading;
}

async function importDeferringValidators<T>(load: () => Promise<T>): Promise<T> {
  const prototype = libraryAjvPrototype();
  if (prototype === undefined || Object.prototype.hasOwnProperty.call(prototype, 'compile')) return load();
  const compile = prototype.compile;
  prototype.compile = function deferredCompile(this: object, schema: unknown, ...rest: unknown[]): Validate {
    return deferredValidator(() => compile.call(this, schema, ...rest));
  };
  try {
    return await load();
  } finally {
    delete (prototype as Partial<AjvPrototype>).compile;
  }
}

/** A validator that compiles on its first call, then delegates (copying `errors` after each call, as ajv sets it). */
export function deferredValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = function (this: unknown, ...args: unknown[]): unknown {
    compiled ??= compile();
    const result = compiled.apply(this, args);
    validate.errors = compiled.errors;
    return result;
  };
  validate.errors = null;
  return validate;
}

/** The prototype of the Ajv2020 class @platformatic/kafka imports (its own copy, wherever npm put it). */
function libraryAjvPrototype(): AjvPrototype | undefined {
  try {
    const fromHere = createRequire(import.meta.url);
    const fromLibrary = createRequire(fromHere.resolve('@platformatic/kafka'));
    const { Ajv2020 } = fromLibrary('ajv/dist/2020.js') as { Ajv2020?: { prototype: AjvPrototype } };
    return typeof Ajv2020?.prototype.compile === 'function' ? Ajv2020.prototype : undefined;
  } catch {
    return undefined;
  }
}
