/**
 * Chooses, per call, the order in which a model's deployments are tried: the best priority
 * first, spread within it by the model's strategy, then the next priorities (ordered
 * fallback); deployments whose breaker is open, that a 429 parked or whose own rpm/tpm
 * window is full are left out. Health is per process, like the retries it steers; windows
 * are shared by every process when there are several (see QuotaFactory).
 */
import type { CatalogModel, ModelDeployment } from '../catalog/types.ts';
import { DEFAULT_ROUTING } from '../catalog/deployment-schema.ts';
import { DeploymentHealth } from './deployment-health.ts';
import { type DeploymentQuota, DeploymentWindow } from './deployment-window.ts';
import type { ProviderPreferences } from './provider-preferences.ts';

export type RoutePlan = {
  /** Deployments to try, in order. */
  tries: ModelDeployment[];
  /** Left out now (breaker open, parked or window full): the soonest wait, and whether a 429 or a full window is the reason. */
  waitMs: number | undefined;
  parked: boolean;
  full: boolean;
  /** Deployments whose `tpm` is below the call's tokens on its own. */
  tooLarge: number;
};

export type HealthSnapshot = { model: string; deployment: string; health: DeploymentHealth; window: DeploymentQuota | undefined };

/** The window of a deployment with limits: by default this process's own. */
export type QuotaFactory = (deployment: ModelDeployment) => DeploymentQuota;

const processWindow: QuotaFactory = (deployment) => new DeploymentWindow({ rpm: deployment.rpm, tpm: deployment.tpm });

export class DeploymentRouter {
  readonly #now: () => number;
  readonly #quotaOf: QuotaFactory;
  readonly #health = new Map<string, HealthSnapshot>();
  /** Smooth weighted round-robin credit per deployment (nginx's): exact shares, no randomness. */
  readonly #credit = new Map<string, number>();

  constructor(options: { now?: () => number; quotaOf?: QuotaFactory } = {}) {
    this.#now = options.now ?? Date.now;
    this.#quotaOf = options.quotaOf ?? processWindow;
  }

  now(): number {
    return this.#now();
  }

  healthOf(model: CatalogModel, deployment: ModelDeployment): DeploymentHealth {
    return this.#entry(model, deployment).health;
  }

  /** The deployment's rpm/tpm window, undefined when it has no limits. */
  windowOf(model: CatalogModel, deployment: ModelDeployment): DeploymentQuota | undefined {
    return this.#entry(model, deployment).window;
  }

  #entry(model: CatalogModel, deployment: ModelDeployment): HealthSnapshot {
    let entry = this.#health.get(deployment.adapterKey);
    if (!entry) {
      const limited = deployment.rpm !== undefined || deployment.tpm !== undefined;
      entry = {
        model: model.id,
        deployment: deployment.label,
        health: new DeploymentHealth(model.routing ?? DEFAULT_ROUTING),
        window: limited ? this.#quotaOf(deployment) : undefined,
      };
      this.#health.set(deployment.adapterKey, entry);
    }
    return entry;
  }

  /** The model's deployments as this process sees them, whether or not a call has reached them yet. */
  healthOfModel(model: CatalogModel): HealthSnapshot[] {
    return (model.deployments ?? []).map((deployment) => this.#entry(model, deployment));
  }

  snapshot(): HealthSnapshot[] {
    return [...this.#health.values()];
  }

  /** `tokens`: the call's input estimate plus its output cap, for the deployments' `tpm`. */
  plan(model: CatalogModel, deployments: readonly ModelDeployment[], preferences: ProviderPreferences | undefined, tokens = 0): RoutePlan {
    const now = this.#now();
    const allowed = preferences ? deployments.filter((deployment) => admitted(deployment, preferences)) : deployments;
    const ready: ModelDeployment[] = [];
    let waitMs: number | undefined;
    let parked = false;
    let full = false;
    let tooLarge = 0;
    for (const deployment of allowed) {
      const { health, window } = this.#entry(model, deployment);
      if (window && !window.canHold(tokens)) {
        tooLarge += 1;
        continue;
      }
      const windowWait = window?.waitMs(now, tokens) ?? 0;
      if (health.available(now) && windowWait === 0) {
        ready.push(deployment);
        continue;
      }
      const wait = Math.max(health.waitMs(now), windowWait);
      waitMs = waitMs === undefined ? wait : Math.min(waitMs, wait);
      parked ||= health.parked(now);
      full ||= windowWait > 0;
    }
    let tries = this.#rank(model, ready, preferences);
    if (preferences?.order) tries = preferred(tries, preferences.order, preferences.allowFallbacks);
    else if (preferences && !preferences.allowFallbacks) tries = tries.slice(0, 1);
    return { tries, waitMs, parked, full, tooLarge };
  }

  #rank(model: CatalogModel, ready: ModelDeployment[], preferences: ProviderPreferences | undefined): ModelDeployment[] {
    const strategy = model.routing?.strategy ?? DEFAULT_ROUTING.strategy;
    const sort = preferences?.sort;
    if (sort === 'latency') return [...ready].sort((a, b) => this.#latency(model, a) - this.#latency(model, b));
    if (sort === 'throughput') return [...ready].sort((a, b) => this.healthOf(model, a).inFlight - this.healthOf(model, b).inFlight);
    // Deployments may bill differently (Bedrock's regional prices); equal prices keep the configured order.
    if (sort === 'price') return [...ready].sort((a, b) => tokenPrice(a) - tokenPrice(b));
    const groups = new Map<number, ModelDeployment[]>();
    for (const deployment of ready) groups.set(deployment.priority, [...(groups.get(deployment.priority) ?? []), deployment]);
    const ranked: ModelDeployment[] = [];
    for (const priority of [...groups.keys()].sort((a, b) => a - b)) {
      const group = groups.get(priority) ?? [];
      if (strategy === 'ordered') ranked.push(...group);
      else if (strategy === 'least_busy') ranked.push(...[...group].sort((a, b) => this.healthOf(model, a).inFlight - this.healthOf(model, b).inFlight));
      else if (strategy === 'lowest_latency') ranked.push(...[...group].sort((a, b) => this.#latency(model, a) - this.#latency(model, b)));
      // Only the first group spreads the calls; later ones are fallbacks, in weight order.
      else if (ranked.length === 0) ranked.push(...this.#weighted(group));
      else ranked.push(...[...group].sort((a, b) => b.weight - a.weight));
    }
    return ranked;
  }

  /** The next pick of a smooth weighted round-robin first, then the rest by weight. */
  #weighted(group: readonly ModelDeployment[]): ModelDeployment[] {
    if (group.length < 2) return [...group];
    let total = 0;
    let best: ModelDeployment | undefined;
    let bestCredit = Number.NEGATIVE_INFINITY;
    for (const deployment of group) {
      const credit = (this.#credit.get(deployment.adapterKey) ?? 0) + deployment.weight;
      this.#credit.set(deployment.adapterKey, credit);
      total += deployment.weight;
      if (credit > bestCredit) {
        best = deployment;
        bestCredit = credit;
      }
    }
    if (!best) return [...group];
    this.#credit.set(best.adapterKey, bestCredit - total);
    const chosen = best;
    return [chosen, ...group.filter((deployment) => deployment !== chosen).sort((a, b) => b.weight - a.weight)];
  }

  /** Unmeasured deployments rank first, so each gets measured. */
  #latency(model: CatalogModel, deployment: ModelDeployment): number {
    return this.healthOf(model, deployment).latencyMs ?? 0;
  }
}

const names = (deployment: ModelDeployment): readonly string[] => [deployment.label, deployment.provider];

function admitted(deployment: ModelDeployment, preferences: ProviderPreferences): boolean {
  const [label, provider] = names(deployment);
  const matches = (list: readonly string[]) => list.includes(label ?? '') || list.includes(provider ?? '');
  if (preferences.only && !matches(preferences.only)) return false;
  return !(preferences.ignore && matches(preferences.ignore));
}

/** The deployments `order` names first, in its order; the rest after them unless fallbacks are off. */
function preferred(tries: readonly ModelDeployment[], order: readonly string[], allowFallbacks: boolean): ModelDeployment[] {
  const rank = (deployment: ModelDeployment) => {
    const found = names(deployment)
      .map((name) => order.indexOf(name))
      .filter((index) => index >= 0);
    return found.length > 0 ? Math.min(...found) : Number.POSITIVE_INFINITY;
  };
  const named = tries.filter((deployment) => rank(deployment) !== Number.POSITIVE_INFINITY).sort((a, b) => rank(a) - rank(b));
  return allowFallbacks ? [...named, ...tries.filter((deployment) => rank(deployment) === Number.POSITIVE_INFINITY)] : named;
}

/** A deployment's price for ranking: its input and output rates per million tokens, added. */
const tokenPrice = (deployment: ModelDeployment): number => (deployment.served.prices.inputPerMillion ?? 0) + (deployment.served.prices.outputPerMillion ?? 0);
