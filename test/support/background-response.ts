/**
 * Polls `GET /agents/v1/responses/{id}` until a background response has ended (neither
 * queued nor in progress), and returns it as served.
 */
export async function waitForBackgroundResponse<Resource extends { status: string }>(baseUrl: string, headers: Record<string, string>, id: string): Promise<Resource> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const resource = (await (await fetch(`${baseUrl}/agents/v1/responses/${id}`, { headers })).json()) as Resource;
    if (resource.status !== 'queued' && resource.status !== 'in_progress') return resource;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the background response ${id} did not end`);
}
