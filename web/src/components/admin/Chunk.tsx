/** A screen of the Organization panel loaded on demand (its own chunk), with a quiet placeholder meanwhile. */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../../i18n';

export function Chunk<P extends object>({ load, props }: { load: () => Promise<{ default: ComponentType<P> }>; props: P }) {
  const [C, setC] = useState<ComponentType<P> | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    load().then((m) => live && setC(() => m.default), () => live && setFailed(true));
    return () => { live = false; };
  }, [load]);
  if (C) return <C {...props} />;
  return <p role="status">{failed ? t('Could not reach the server.') : t('Loading…')}</p>;
}
