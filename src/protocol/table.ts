/**
 * The reverse of an `as const` code table (opcodes, error codes, transaction states, exit codes): code → name,
 * built once from the table itself, so a name function never keeps a second list that could drift from it.
 */
export function namesOf<T extends Readonly<Record<string, number>>>(table: T): ReadonlyMap<number, keyof T & string> {
  return new Map(Object.entries(table).map(([name, code]) => [code, name as keyof T & string]));
}
