import type { ConsoleModel } from '@contract/models.ts';
import { useState } from 'react';
import { useModels, useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { DeploymentHealth } from './deployment-health.tsx';
import { TryMedia } from './try-media.tsx';

/** USD per token → USD per million tokens, as people compare prices. */
function perMillion(value: unknown): string {
  const number = Number(value);
  return Number.isFinite(number) ? `$${(number * 1_000_000).toFixed(2)}` : '—';
}

function priceText(model: ConsoleModel): string {
  const pricing = (model.pricing ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (pricing['prompt'] !== undefined) parts.push(`${perMillion(pricing['prompt'])} in`);
  if (pricing['completion'] !== undefined) parts.push(`${perMillion(pricing['completion'])} out / M tokens`);
  if (pricing['image'] !== undefined) parts.push(`$${String(pricing['image'])} per image`);
  if (pricing['character'] !== undefined) parts.push(`${perMillion(pricing['character'])} / M characters`);
  if (pricing['audio_second'] !== undefined) parts.push(`$${String(pricing['audio_second'])} per second`);
  return parts.join(', ') || 'free';
}

const canTry = (model: ConsoleModel): boolean =>
  Boolean(model.media_params_schema) && (model.capabilities ?? []).some((capability) => capability === 'image_generation' || capability === 'audio_speech');

export function ModelsPage() {
  const models = useModels();
  const me = useSignedIn();
  const [trying, setTrying] = useState<ConsoleModel>();
  if (models.isPending) return <Loading what="models" />;
  if (models.error) return <ErrorNote error={models.error} />;
  return (
    <>
      <h1>Models</h1>
      <p className="muted">The catalog your plan allows. Call them with a model key under /v1.</p>
      <section className="card" aria-label="Models">
        <DataTable label="Models" columns={['Model', 'Capabilities', 'Context', 'Price']} actions="Try">
          {models.data.data.map((model) => (
            <tr key={model.id}>
              <td>
                <code>{model.id}</code>
              </td>
              <td>{(model.capabilities ?? []).join(', ')}</td>
              <td>{model.context_length ? model.context_length.toLocaleString('en-US') : '—'}</td>
              <td>{priceText(model)}</td>
              <td>
                {canTry(model) && (
                  <Button onClick={() => setTrying(model)} aria-label={`Try ${model.id}`}>
                    Try
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
      <DeploymentHealth />
      <Dialog
        open={trying !== undefined}
        onOpenChange={(open) => !open && setTrying(undefined)}
        title={`Try ${trying?.id ?? ''}`}
        description="Runs as this account: billed to its credit and logged in Usage."
      >
        {trying && me && <TryMedia model={trying} csrf={me.csrf_token} />}
      </Dialog>
    </>
  );
}
