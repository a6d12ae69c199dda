/**
 * The evaluation's cost ceiling: a case starts only when what was spent, plus an estimate
 * for each case in flight and for this one, stays within it. The estimate is the dearest
 * case so far; before any case has ended it is the agent's own max_run_cost_usd, and
 * without that nothing is known, so one case runs alone until its cost is.
 */
export class CostCeiling {
  readonly #maxMicros: number | null;
  #estimateMicros: number | undefined;
  #spentMicros = 0;
  #inFlight = 0;

  constructor(maxMicros: number | null, firstEstimateMicros: number | undefined) {
    this.#maxMicros = maxMicros;
    this.#estimateMicros = firstEstimateMicros;
  }

  mayStart(): boolean {
    if (this.#maxMicros === null) return true;
    if (this.#spentMicros >= this.#maxMicros) return false;
    if (this.#estimateMicros === undefined) return this.#inFlight === 0;
    return this.#spentMicros + (this.#inFlight + 1) * this.#estimateMicros <= this.#maxMicros;
  }

  started(): void {
    this.#inFlight += 1;
  }

  finished(costMicros: number): void {
    this.#inFlight -= 1;
    this.#spentMicros += costMicros;
    this.#estimateMicros = Math.max(this.#estimateMicros ?? 0, costMicros);
  }
}

/**
 * Runs `run` over the cases in order, at most `concurrency` at once, while the ceiling lets a
 * case start; a case the ceiling holds back waits for those in flight (their costs may let it
 * start), and when nothing is in flight and it still may not, the rest are left. Resolves with
 * how many cases were started, once every started case has ended.
 */
export async function scheduleCases<Case>(
  cases: readonly Case[],
  options: { concurrency: number; ceiling: CostCeiling; signal: AbortSignal },
  run: (testCase: Case, position: number) => Promise<number>,
): Promise<number> {
  const { concurrency, ceiling, signal } = options;
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  let next = 0;
  while (next < cases.length && !signal.aborted && !failure) {
    const full = inFlight.size >= concurrency;
    if (full || (!ceiling.mayStart() && inFlight.size > 0)) {
      await Promise.race(inFlight);
      continue;
    }
    if (!ceiling.mayStart()) break;
    const position = next;
    next += 1;
    ceiling.started();
    const task: Promise<void> = run(cases[position] as Case, position)
      .then((costMicros) => ceiling.finished(costMicros))
      .catch((error: unknown) => {
        ceiling.finished(0);
        failure ??= { error };
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  }
  await Promise.all(inFlight);
  if (failure) throw failure.error;
  return next;
}
