import { useState, type FormEvent } from 'react';
import { apiMethods } from '../../../src-shared/protocol/api';
import { useConnectDevice } from '../api/queries';
import { errorMessage } from '../state/format';
import { useInspector } from '../state/store';

/** Connect a device by its runner URL (ws://HOST:PORT/ws). */
export function ConnectForm() {
  const [url, setUrl] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const connect = useConnectDevice();
  const selectDevice = useInspector((s) => s.selectDevice);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input = { url: url.trim() };
    const checked = apiMethods['devices.connect'].input.safeParse(input);
    if (!checked.success) {
      setInvalid(checked.error.issues[0]?.message ?? 'not a runner URL');
      return;
    }
    setInvalid(null);
    connect.mutate(input, {
      onSuccess: (device) => {
        selectDevice(device.id);
        setUrl('');
      },
    });
  };

  const error = invalid ?? (connect.error ? errorMessage(connect.error) : null);
  return (
    <form className="connect-form" data-testid="connect-form" onSubmit={submit}>
      <label className="section-title" htmlFor="connect-url">
        Connect a runner
      </label>
      <div className="connect-row">
        <input
          id="connect-url"
          data-testid="connect-url"
          type="text"
          spellCheck={false}
          autoComplete="off"
          placeholder="ws://127.0.0.1:8765/ws"
          value={url}
          onChange={(e) => {
            setUrl(e.target.value);
            setInvalid(null);
          }}
        />
        <button data-testid="connect-submit" type="submit" disabled={connect.isPending || url.trim() === ''}>
          {connect.isPending ? '…' : 'Connect'}
        </button>
      </div>
      {error && (
        <div className="form-error" data-testid="connect-error" role="alert">
          {error}
        </div>
      )}
    </form>
  );
}
