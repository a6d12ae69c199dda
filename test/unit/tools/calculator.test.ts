import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../../../src/tools/builtin/calculator.ts';
import { calculate } from '../../../src/tools/builtin/safe-math.ts';
import { compileTool } from '../../../src/tools/compile-tool.ts';
import { runTool } from '../../../src/tools/run-tool.ts';
import { toolContext } from './tool-test-helpers.ts';

describe('calculator', () => {
  it('computes with decimal arithmetic', () => {
    expect(calculate('0.1 + 0.2')).toBe('0.3');
    expect(calculate('(12.5 * 3) / 4')).toBe('9.375');
    expect(calculate('round(19.99 * 0.15, 2)')).toBe('3');
    expect(calculate('2^10')).toBe('1024');
    expect(calculate('sqrt(2)')).toBe('1.4142135623731');
    expect(calculate('1/3')).toBe('0.333333333333333');
  });

  it('supports functions, variables and units', () => {
    expect(calculate('max(3, 7, 5) + mean([1, 2, 3])')).toBe('9');
    expect(calculate('price = 80; price * 1.2')).toBe('96');
    expect(calculate('5 km to mile')).toBe('3.10685596118667 mile');
    expect(calculate('5!')).toBe('120');
  });

  it('refuses what could reconfigure the instance or exhaust the server', () => {
    expect(() => calculate('import({}, {override: true})')).toThrow(/function import is not available/);
    expect(() => calculate('evaluate("1+1")')).toThrow(/not available/);
    expect(() => calculate('zeros(100000, 100000)')).toThrow(/not available/);
    expect(() => calculate('1:100000000')).toThrow(/RangeNode is not supported/);
    expect(() => calculate('f(x) = f(x); f(1)')).toThrow(/FunctionAssignmentNode is not supported/);
    expect(() => calculate('100000!')).toThrow(/limited to arguments up to 10000/);
    expect(() => calculate(`${'1 + '.repeat(400)}1`)).toThrow(/longer than 1000/);
  });

  it('never lets an allowed name stand for a refused function, nor grows a matrix by assignment', () => {
    // Names resolve through the scope first, so this would call evaluate: unbounded
    // ranges, or createUnit redefining "mile" for every later caller.
    expect(() => calculate('sqrt = evaluate; sqrt("1:10")')).toThrow(/function cannot be assigned/);
    expect(() => calculate('sqrt = evaluate; sqrt("createUnit(\\"mile\\", \\"2 km\\", {override: true})")')).toThrow(/function cannot be assigned/);
    expect(() => calculate('max = true ? range : 1; max(1, 5)')).toThrow(/function cannot be assigned/);
    expect(() => calculate('x = [evaluate]; sqrt = x[1]; sqrt("1:10")')).toThrow(/function cannot be assigned/);
    expect(calculate('1 mile to km')).toBe('1.609344 km');
    expect(() => calculate('a = [1]; a[100000000] = 1; 1')).toThrow(/part of a matrix/);
    expect(calculate('distance = 5 km; distance to mile')).toBe('3.10685596118667 mile');
  });

  it('reports a bad expression as an error result to the model', async () => {
    const tool = compileTool(calculatorTool, 'builtin', 'builtin');
    expect(await runTool(tool, { expression: '6 * 7' }, toolContext())).toMatchObject({ ok: true, content: '42' });
    const result = await runTool(tool, { expression: '2 +* 3' }, toolContext());
    expect(result.ok).toBe(false);
    expect(result.content).toMatch(/^Error: /);
    expect((await runTool(tool, { expression: 'secret' }, toolContext())).content).toBe('Error: Undefined symbol secret');
  });
});
