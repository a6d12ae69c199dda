/**
 * Attaches a model's `deployments:` to its catalog entry: each gets its label, the key of
 * the adapter built for it (see deploymentProviderConfigs) and the model as it serves it.
 */
import { DEFAULT_ROUTING, deploymentAdapterKey, deploymentLabels, type DeploymentConfig, type RoutingSettings } from './deployment-schema.ts';
import { findPublishedModel } from './published-prices.ts';
import type { CatalogModel, ModelDeployment, ModelPrices, ProviderKind } from './types.ts';
import { nativeProviderOf } from '../providers/native-providers.ts';
import { vertexPublisher } from '../providers/vertex/vertex-call.ts';

/**
 * The wire kind of a deployment's provider: the three built-in ones, Bedrock's Converse, Cohere's and Mistral's, Vertex AI's by the model
 * it serves (Claude speaks Anthropic's format there, the rest Gemini's), else OpenAI's
 * format (Azure, presets, the file's providers).
 */
export function deploymentProviderKind(providerId: string, upstreamName: string): ProviderKind {
  if (providerId === 'vertex') return vertexPublisher(upstreamName) === 'anthropic' ? 'anthropic' : 'gemini';
  if (providerId === 'openai') return 'openai';
  if (providerId === 'anthropic') return 'anthropic';
  if (providerId === 'google') return 'gemini';
  if (providerId === 'bedrock') return 'bedrock';
  const native = nativeProviderOf(providerId);
  if (native) return native.kind;
  return 'openai-compatible';
}

export function withDeployments(model: CatalogModel, deployments: readonly DeploymentConfig[], routing: RoutingSettings | undefined, now = new Date()): CatalogModel {
  const labels = deploymentLabels(deployments);
  const routes: ModelDeployment[] = deployments.map((deployment, index) => {
    const label = labels[index] ?? deployment.provider;
    return {
      label,
      provider: deployment.provider,
      adapterKey: deploymentAdapterKey(model.id, label),
      weight: deployment.weight,
      priority: deployment.priority,
      rpm: deployment.rpm,
      tpm: deployment.tpm,
      region: deployment.region,
      served: {
        ...model,
        providerId: label,
        providerKind: deploymentProviderKind(deployment.provider, deployment.model ?? model.upstreamName),
        upstreamName: deployment.model ?? model.upstreamName,
        prices: servedPrices(deployment.provider, deployment.model ?? model.upstreamName, model.prices, now),
        ...((model.timeouts || deployment.timeouts) && { timeouts: { model: model.timeouts?.model, deployment: deployment.timeouts } }),
      },
    };
  });
  return { ...model, deployments: routes, routing: routing ?? DEFAULT_ROUTING };
}

/** A Bedrock deployment bills at Bedrock's published price for the model id it calls (its regional profiles cost more), when the price data knows that id. */
function servedPrices(provider: string, upstreamName: string, prices: ModelPrices, now: Date): ModelPrices {
  if (provider !== 'bedrock') return prices;
  return findPublishedModel('aws', upstreamName, now)?.prices ?? prices;
}
