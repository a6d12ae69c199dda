import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { CaseRun, ScoredCase, ScoreResult } from './case-run.ts';
import { COMPILE_TIME_LIMIT_MS, TIMED_OUT, withinTimeLimit } from './time-limited.ts';

type Verdict = Omit<ScoreResult, 'scorer' | 'type'>;

/**
 * Validators of one evaluation's JSON schemas, compiled once each. One Ajv per evaluation:
 * an Ajv keeps every schema it compiled, and tenants' schemas must not pile up in the server.
 */
export class JsonSchemaChecks {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  readonly #compiled = new Map<string, ValidateFunction | Error>();

  validatorFor(schema: Record<string, unknown>): ValidateFunction | Error {
    const key = JSON.stringify(schema);
    const known = this.#compiled.get(key);
    if (known) return known;
    let compiled: ValidateFunction | Error;
    try {
      const result = withinTimeLimit(() => this.#ajv.compile(schema), COMPILE_TIME_LIMIT_MS);
      compiled = result === TIMED_OUT ? new Error('the schema took too long to compile') : result;
    } catch (error) {
      compiled = new Error(`the schema does not compile: ${(error as Error).message}`);
    }
    this.#compiled.set(key, compiled);
    return compiled;
  }
}

/** The answer (its JSON, or the JSON inside a fenced code block) is valid against the schema. */
export function scoreJsonSchema(checks: JsonSchemaChecks, declared: Record<string, unknown> | undefined, run: CaseRun, testCase: ScoredCase): Verdict {
  const schema = declared ?? testCase.expect?.json_schema;
  if (schema === undefined) return { score: null, reason: 'no schema: none given and no json_schema in the case' };
  const validate = checks.validatorFor(schema);
  if (validate instanceof Error) return { score: null, reason: validate.message, error: 'invalid_schema' };
  const value = parseAnswer(run.answer);
  if (value === undefined) return { score: 0, reason: 'the answer is not JSON' };
  const valid = withinTimeLimit(() => validate(value));
  if (valid === TIMED_OUT) return { score: null, reason: 'the schema took too long on this answer', error: 'schema_timeout' };
  return valid ? { score: 1, reason: 'the answer is valid against the schema' } : { score: 0, reason: describe(validate.errors ?? []) };
}

/** Models often wrap JSON in a Markdown code fence: the fence is looked inside. */
function parseAnswer(answer: string): unknown {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(answer)?.[1];
  try {
    return JSON.parse(fenced ?? answer) as unknown;
  } catch {
    return undefined;
  }
}

const describe = (errors: ErrorObject[]): string =>
  errors
    .slice(0, 3)
    .map((error) => `${error.instancePath || '(the answer)'} ${error.message ?? 'is invalid'}`)
    .join('; ');
