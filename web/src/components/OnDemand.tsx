/**
 * A screen loaded on demand: its module's default export, rendered once the chunk arrived.
 * Meanwhile a modal placeholder, or with `inline` a quiet line (a tab inside a panel).
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n';

export function OnDemand<P extends object>({ load, props, inline }: { load: () => Promise<{ default: ComponentType<P> }>; props: P; inline?: boolean }) {
  const [C, setC] = useState<ComponentType<P> | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    load().then((m) => live && setC(() => m.default), () => live && setFailed(true));
    return () => { live = false; };
  }, [load]);
  if (C) return <C {...props} />;
  const text = failed ? t('Could not reach the server.') : t('Loading…');
  return inline ? <p role="status">{text}</p> : <div class="modal" role="status">{text}</div>;
}
