import type { Redis } from 'ioredis';
import type { QuotaFactory } from '../routing/deployment-router.ts';
import { databaseOutageAnswer } from '../store/database-outage-answer.ts';
import type { Database } from '../store/database.ts';
import { LeasedDeploymentWindow } from './leased-deployment-window.ts';
import { type DeploymentMeasure, sweepDeploymentWindows, takeDeploymentSlots } from './rate-window-repository.ts';
import { RedisDeploymentWindow } from './redis-deployment-window.ts';
import { WindowLeases } from './window-leases.ts';

/**
 * Where deployments' `rpm`/`tpm` windows are kept, by the rule key windows follow
 * (rate-limiter.ts): in Redis when REDIS_URL is set; else in PostgreSQL, shared by every
 * process and host on it; undefined on PGlite, which is one process, so the router keeps
 * them in this process. A deployment without limits never reaches here.
 */
export function deploymentQuotas(redis: Redis | undefined, database: Database, now: () => number): QuotaFactory | undefined {
  if (redis) return (deployment) => new RedisDeploymentWindow(deployment.adapterKey, { rpm: deployment.rpm, tpm: deployment.tpm }, redis, now);
  if (database.engine !== 'postgres') return undefined;
  const leases = (measure: DeploymentMeasure) =>
    new WindowLeases({
      take: (deployment, perMinute, need) =>
        takeDeploymentSlots(database, deployment, measure, perMinute, need).catch((error: unknown) => {
          // The database away is a 503 with Retry-After: the limit is never loosened to a per-process one.
          throw databaseOutageAnswer(error) ?? error;
        }),
      sweep: () => (measure === 'requests' ? sweepDeploymentWindows(database) : Promise.resolve()),
      now,
    });
  const shared = { requests: leases('requests'), tokens: leases('tokens') };
  return (deployment) => new LeasedDeploymentWindow(deployment.adapterKey, { rpm: deployment.rpm, tpm: deployment.tpm }, shared);
}
