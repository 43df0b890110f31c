/** One host API call from a test, its error thrown naming the method (the web host's API, in process). */
import type { ApiService } from '@main/host/api';

export async function apiCall(api: Pick<ApiService, 'handle'>, method: string, params: unknown): Promise<Record<string, unknown>> {
  const reply = await api.handle(method, params);
  if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as Record<string, unknown>;
}
