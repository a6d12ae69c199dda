/**
 * A request's steering of providers, OpenRouter's `provider` object: Junction's own field,
 * validated here and never forwarded upstream. Names match a deployment's label or its
 * provider id (a model without deployments is one deployment named after its provider).
 */
import { z } from 'zod';

const Names = z.array(z.string().min(1).max(100)).max(20);

export const ProviderPreferencesSchema = z.strictObject({
  order: Names.optional().describe('Deployments to try first, in this order.'),
  only: Names.optional().describe('The only deployments that may serve the call.'),
  ignore: Names.optional().describe('Deployments that must not serve the call.'),
  allow_fallbacks: z.boolean().optional().describe('false: no deployment beyond the first choice (or beyond `order`).'),
  sort: z.enum(['price', 'latency', 'throughput']).optional().describe('Rank the deployments by price, measured latency or load instead of the configured strategy.'),
});
export type ProviderPreferencesBody = z.infer<typeof ProviderPreferencesSchema>;

export type ProviderPreferences = {
  order: readonly string[] | undefined;
  only: readonly string[] | undefined;
  ignore: readonly string[] | undefined;
  allowFallbacks: boolean;
  sort: 'price' | 'latency' | 'throughput' | undefined;
};

export const toProviderPreferences = (body: ProviderPreferencesBody): ProviderPreferences => ({
  order: body.order,
  only: body.only,
  ignore: body.ignore,
  allowFallbacks: body.allow_fallbacks ?? true,
  sort: body.sort,
});
