/**
 * Whether this process is draining: from SIGTERM until its listener closes, readiness
 * answers 503 "draining" while requests are still served, so a load balancer stops
 * sending new ones before any connection is refused.
 */
export class DrainState {
  #since: Date | undefined;

  begin(now: Date): void {
    this.#since ??= now;
  }

  /** When draining began, or undefined while serving normally. */
  get since(): Date | undefined {
    return this.#since;
  }
}
