/**
 * loadKafkaBackend (src/client/kafka/load.ts): the Kafka backend imported with @platformatic/kafka's import-time
 * validators deferred to their first call. What must hold: a deferred validator answers and reports `errors` as the
 * compiled one does, compiling once and only when called; after the load, ajv's `compile` is ajv's own again; and
 * the library still rejects invalid options (its always-on group-id check, and with `strict: true` every option
 * check). No broker: the options are refused in the clients' constructors, before any connection.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { deferredValidator, loadKafkaBackend } from '../../../src/client/kafka/load.js';

describe('deferredValidator', () => {
  it('compiles on the first call only, then answers and reports errors as the compiled validator', () => {
    let compiles = 0;
    const compiled: ((data: unknown) => boolean) & { errors?: unknown } = (data) => {
      compiled.errors = data === 1 ? null : [{ message: `not 1: ${String(data)}` }];
      return data === 1;
    };
    const validate = deferredValidator(() => {
      compiles += 1;
      return compiled;
    });
    expect(compiles).toBe(0);
    expect(validate.errors).toBeNull();
    expect(validate(2)).toBe(false);
    expect(validate.errors).toEqual([{ message: 'not 1: 2' }]);
    expect(validate(1)).toBe(true);
    expect(validate.errors).toBeNull();
    expect(compiles).toBe(1);
  });
});

describe('loadKafkaBackend', () => {
  it('loads the backend once and leaves ajv as it was', async () => {
    const first = await loadKafkaBackend();
    expect(typeof first.connectKafka).toBe('function');
    expect(await loadKafkaBackend()).toBe(first);
    const fromLibrary = createRequire(createRequire(import.meta.url).resolve('@platformatic/kafka'));
    const { Ajv2020 } = fromLibrary('ajv/dist/2020.js') as { Ajv2020: { prototype: object } };
    expect(Object.prototype.hasOwnProperty.call(Ajv2020.prototype, 'compile')).toBe(false);
  });

  it('still has the library refuse invalid options', async () => {
    await loadKafkaBackend();
    const { Admin, Consumer } = await import('@platformatic/kafka');
    const bootstrapBrokers = ['127.0.0.1:1'];
    expect(() => new Consumer({ clientId: 'c', bootstrapBrokers, groupId: 'has space' })).toThrow(/groupId/);
    expect(() => new Admin({ clientId: 'has space', bootstrapBrokers, strict: true })).toThrow(/clientId/);
  });

  it('keeps the exported validators answering', async () => {
    await loadKafkaBackend();
    const { listTopicsOptionsValidator: validate } = await import('@platformatic/kafka');
    expect(validate({ includeInternals: 'yes' })).toBe(false);
    expect(validate.errors).toEqual([expect.objectContaining({ instancePath: '/includeInternals' })]);
    expect(validate({ includeInternals: true })).toBe(true);
    expect(validate.errors).toBeNull();
  });
});
