import { describe, expect, it } from 'vitest';
import { Admission } from '../../../src/broker/admission.js';
import { silentLogger, type Logger } from '../../../src/broker/core.js';
import { type BudgetedConnection, SendBudget } from '../../../src/broker/send-budget.js';

function conn(name: string, budget: SendBudget, shed: string[]): BudgetedConnection {
  const c: BudgetedConnection = {
    remoteAddress: name,
    shed: () => {
      shed.push(name);
      budget.remove(c);
    },
  };
  return c;
}

describe('SendBudget', () => {
  it('keeps a running total of what connections report and sheds the largest holder once past the limit', () => {
    const shed: string[] = [];
    const budget = new SendBudget(100, silentLogger);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => conn(n, budget, shed));
    budget.report(a!, 40);
    budget.report(b!, 50);
    expect(budget.total).toBe(90);
    budget.report(a!, 10);
    expect(budget.total).toBe(60);
    // c pushes the total to 130 and holds the most: c goes.
    budget.report(c!, 70);
    expect(shed).toEqual(['c']);
    expect(budget.total).toBe(60);
    budget.report(c!, 30);
    // a's report passes the limit, but b holds the most: b goes, not a, who wrote last.
    budget.report(a!, 25);
    expect(shed).toEqual(['c', 'b']);
    expect(budget.total).toBe(55);
  });
});

describe('Admission.acceptFailed', () => {
  it('logs an accept error once per interval, with how many were suppressed in between', () => {
    const warnings: Array<Record<string, unknown> | undefined> = [];
    const logger: Logger = { ...silentLogger, warn: (_m, f) => warnings.push(f) };
    const admission = new Admission({ maxConnections: 1, maxConnectionsPerIp: 1 }, logger);
    const emfile = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' });
    for (let i = 0; i < 5; i++) admission.acceptFailed(emfile);
    expect(warnings).toEqual([{ error: 'EMFILE', connections: 0, repeats: 0 }]);
  });
});
