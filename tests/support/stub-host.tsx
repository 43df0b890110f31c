/**
 * The host as a component test stands it in: a transport whose calls `answer` replies to (a throw is the
 * host's refusal) and which pushes no events, and the providers the app mounts a panel under (the
 * transport, and a query client that does not retry, so a refusal shows at once).
 */
import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { ApiContext } from '@renderer/api/queries';
import type { Transport } from '@renderer/api/transport';

export function stubTransport(answer: (method: string, params: Record<string, unknown>) => unknown): Transport {
  return {
    kind: 'websocket',
    call: async (method: string, params: Record<string, unknown>) => answer(method, params),
    on: () => () => {},
  } as unknown as Transport;
}

export function renderOverHost(transport: Transport, ui: ReactNode): ReturnType<typeof render> {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <ApiContext.Provider value={transport}>
      <QueryClientProvider client={client}>{ui}</QueryClientProvider>
    </ApiContext.Provider>,
  );
}
