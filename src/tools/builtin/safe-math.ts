import { all, create, type MathNode } from 'mathjs';
import { MAX_EXPRESSION_LENGTH } from './calculator.ts';

/**
 * Arithmetic for the model, which is bad at it. mathjs parses into its own AST and
 * never reaches JavaScript's eval; on top of that, following its security guide,
 * we only let through an allowlist of node types and functions (no assignment of
 * functions, no ranges/matrix builders that could allocate gigabytes, no
 * parse/evaluate/import that could reconfigure the instance) and cap the
 * arguments of the functions whose cost grows with their input. BigNumber mode
 * makes 0.1 + 0.2 come out as 0.3, which is what a person checking a bill expects.
 */

const math = create(all ?? {}, { number: 'BigNumber', precision: 64 });
const parse = math.parse;
const MAX_COMBINATORIC_ARGUMENT = 10_000;

const ALLOWED_NODE_TYPES = new Set([
  'AccessorNode',
  'ArrayNode',
  'AssignmentNode',
  'BlockNode',
  'ConditionalNode',
  'ConstantNode',
  'FunctionNode',
  'IndexNode',
  'OperatorNode',
  'ParenthesisNode',
  'SymbolNode',
]);

const ALLOWED_FUNCTIONS = new Set([
  'abs',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atan2',
  'atanh',
  'cbrt',
  'ceil',
  'combinations',
  'cos',
  'cosh',
  'cube',
  'exp',
  'factorial',
  'fix',
  'floor',
  'gcd',
  'hypot',
  'lcm',
  'log',
  'log10',
  'log2',
  'max',
  'mean',
  'median',
  'min',
  'mod',
  'nthRoot',
  'permutations',
  'pow',
  'prod',
  'round',
  'sign',
  'sin',
  'sinh',
  'sqrt',
  'square',
  'std',
  'sum',
  'tan',
  'tanh',
  'to',
  'unit',
  'number',
  'variance',
  'mode',
  'quantileSeq',
  'percent',
]);

// Wrap the functions whose run time grows with their argument.
const capped = (name: 'factorial' | 'combinations' | 'permutations') => {
  const original = math[name] as (...args: unknown[]) => unknown;
  return math.typed(name, {
    '...': (args: unknown[]) => {
      if (args.some((arg) => Number(arg) > MAX_COMBINATORIC_ARGUMENT)) throw new Error(`${name} is limited to arguments up to ${MAX_COMBINATORIC_ARGUMENT}`);
      return original(...args);
    },
  });
};
math.import({ factorial: capped('factorial'), combinations: capped('combinations'), permutations: capped('permutations') }, { override: true });

/**
 * The callee allowlist checks names, and a name resolves through the scope first:
 * "sqrt = evaluate; sqrt('…')" would run any expression (createUnit changes the
 * shared instance for every caller, range allocates without bound). Variables hold
 * values, never functions.
 */
class ValuesOnlyScope extends Map<string, unknown> {
  override set(name: string, value: unknown): this {
    if (typeof value === 'function') throw new Error(`a function cannot be assigned to ${name}`);
    return super.set(name, value);
  }
}

export function calculate(expression: string): string {
  if (expression.length > MAX_EXPRESSION_LENGTH) throw new Error(`the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  const tree = parse(expression);
  tree.traverse((node: MathNode) => {
    if (!ALLOWED_NODE_TYPES.has(node.type)) throw new Error(`${node.type} is not supported (no ranges, function definitions or objects)`);
    if (math.isFunctionNode(node) && !ALLOWED_FUNCTIONS.has(node.fn.name)) throw new Error(`function ${node.fn.name} is not available`);
    // "a[100000000] = 1" resizes the matrix before anything else can check it.
    if (math.isAssignmentNode(node) && node.index) throw new Error('assigning to part of a matrix is not supported');
  });
  // A fresh scope per call: variables from one call never leak into another.
  const result: unknown = tree.compile().evaluate(new ValuesOnlyScope());
  // "a = 3; a * 2" evaluates to a ResultSet; the model wants the last value.
  const value = math.isResultSet(result) ? (result as { entries: unknown[] }).entries.at(-1) : result;
  return math.format(value, { precision: 15 });
}
