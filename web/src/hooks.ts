import { useEffect, useState } from 'preact/hooks';
import { store } from './store';

/** Re-renders the calling component whenever the store changed (once per frame at most). */
export function useStore() {
  const [, setVersion] = useState(store.version);
  useEffect(() => store.subscribe(() => setVersion(store.version)), []);
  return store;
}
