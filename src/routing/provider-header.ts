/** The response header naming the provider, or the deployment, that served a call. */
export const PROVIDER_HEADER = 'x-junction-provider';
