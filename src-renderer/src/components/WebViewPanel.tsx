import './WebViewPanel.css';
/**
 * An AppReveal app's web view, for apps that registered get_dom_interactive: its interactive elements
 * (selector, tag, label; never a value) with Click (web_click) and Type (web_type) per element. Only
 * these bounded tools are sent, each as a recorded step on the timeline; no JavaScript is evaluated.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ActionRequest } from '@shared/protocol/action';
import type { WebControl } from '@shared/protocol/appreveal';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { useApi } from '@renderer/api/queries';

export function WebViewPanel({ device, frame, act }: { device: DeviceSummary; frame: Frame | undefined; act: (request: ActionRequest) => Promise<unknown> }) {
  const api = useApi();
  const [text, setText] = useState('');
  const screenKey = frame?.appReveal?.screen?.screenKey ?? '';
  const connected = device.state === 'connected';
  const query = useQuery({
    queryKey: ['webControls', device.id, screenKey],
    queryFn: () => api.call('device.webControls', { deviceId: device.id }),
    enabled: connected,
    retry: false,
    staleTime: Infinity,
  });
  const canClick = device.supportedCommands.includes('web_click');
  const canType = device.supportedCommands.includes('web_type');
  const controls = query.data?.controls ?? [];
  const run = async (request: ActionRequest) => {
    await act(request);
    void query.refetch();
  };

  return (
    <section className="web-view-panel" data-testid="web-view-panel">
      <div className="panel-title">
        <span>Web view</span>
        <span className="spacer" />
        <button type="button" className="key-button" data-testid="web-refresh" disabled={!connected || query.isFetching} onClick={() => void query.refetch()}>
          ↻
        </button>
      </div>
      {canType && (
        <input
          data-testid="web-type-input"
          type="text"
          spellCheck={false}
          autoComplete="off"
          placeholder="Text for Type"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      )}
      {query.isError ? (
        <div className="muted" data-testid="web-error">
          {query.error instanceof Error ? query.error.message : String(query.error)}
        </div>
      ) : controls.length === 0 ? (
        <div className="muted" data-testid="web-empty">
          {query.isFetching ? 'reading…' : 'no interactive web elements'}
        </div>
      ) : (
        <ul className="web-controls">
          {controls.map((control: WebControl) => (
            <li key={control.selector} data-testid="web-control" data-selector={control.selector} title={control.selector}>
              <span className="mono">
                {control.tag}
                {control.type ? `[${control.type}]` : ''}
              </span>{' '}
              <span>{control.label ?? control.text ?? control.selector}</span>
              <span className="spacer" />
              {canClick && (
                <button
                  type="button"
                  className="key-button"
                  data-testid="web-click"
                  disabled={!connected || control.disabled === true}
                  onClick={() => void run({ action: 'webTool', tool: 'web_click', selector: control.selector })}
                >
                  Click
                </button>
              )}
              {canType && control.editable && (
                <button
                  type="button"
                  className="key-button"
                  data-testid="web-type"
                  disabled={!connected || control.disabled === true || text === ''}
                  onClick={() =>
                    void run({ action: 'webTool', tool: 'web_type', selector: control.selector, text, ...(control.secret ? { secret: true } : {}) })
                  }
                >
                  Type
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {query.data?.truncated && <div className="muted">more elements than shown</div>}
    </section>
  );
}
