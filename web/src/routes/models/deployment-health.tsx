import { type ConsoleDeployment, ModelDeploymentsSchema } from '@contract/models.ts';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';

/** Health changes by the second; a page left open follows it. */
const REFRESH_MS = 10_000;

const useModelDeployments = () => useQuery({ queryKey: ['model-deployments'], queryFn: () => api(ModelDeploymentsSchema, '/model-deployments'), refetchInterval: REFRESH_MS });

/** The breaker in words (colour only repeats them). */
function breakerText(deployment: ConsoleDeployment): string {
  if (deployment.breaker === 'open') return `open, ${deployment.open_for_seconds ?? 0} s left`;
  if (deployment.breaker === 'half_open') return 'half-open (probing)';
  return 'closed';
}

function limitsText(deployment: ConsoleDeployment): string {
  const parts: string[] = [];
  if (deployment.rpm !== null) parts.push(`${deployment.requests_last_minute ?? 0} / ${deployment.rpm} requests`);
  if (deployment.tpm !== null) parts.push(`${(deployment.tokens_last_minute ?? 0).toLocaleString('en-US')} / ${deployment.tpm.toLocaleString('en-US')} tokens`);
  return parts.join(', ') || 'no limit';
}

const parkedText = (parkedUntil: string | null): string => (parkedUntil ? new Date(parkedUntil).toLocaleTimeString('en-US') : 'not parked');

/** Each model with deployments: how this server process sees them (breaker, park, errors, latency, load, minute's quota). */
export function DeploymentHealth() {
  const deployments = useModelDeployments();
  if (deployments.isPending) return <Loading what="deployments" />;
  if (deployments.error) return <ErrorNote error={deployments.error} />;
  const models = deployments.data.data;
  if (models.length === 0) return null;
  return (
    <section className="card" aria-labelledby="deployments-heading">
      <h2 id="deployments-heading">Deployments</h2>
      <p className="muted">Health as seen by this server process: other processes keep their own counts.</p>
      {models.map((model) => (
        <div className="table-wrap" key={model.model}>
          <table>
            <caption>
              Deployments of <code>{model.model}</code>
            </caption>
            <thead>
              <tr>
                {['Deployment', 'Provider', 'Region', 'Weight', 'Priority', 'Breaker', 'Parked until', 'Error rate', 'Latency', 'In flight', 'Last minute'].map((column) => (
                  <th scope="col" key={column}>
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {model.deployments.map((deployment) => (
                <tr key={deployment.label}>
                  <th scope="row">{deployment.label}</th>
                  <td>{deployment.provider}</td>
                  <td>{deployment.region ?? '—'}</td>
                  <td>{deployment.weight}</td>
                  <td>{deployment.priority}</td>
                  <td style={deployment.breaker === 'closed' ? undefined : { color: 'var(--danger)' }}>{breakerText(deployment)}</td>
                  <td>{parkedText(deployment.parked_until)}</td>
                  <td>{`${Math.round(deployment.error_rate * 100)}%`}</td>
                  <td>{deployment.latency_ms === null ? 'not measured' : `${deployment.latency_ms} ms`}</td>
                  <td>{deployment.in_flight}</td>
                  <td>{limitsText(deployment)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}
