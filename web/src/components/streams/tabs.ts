/** A tab list's keys (WAI-ARIA): the arrows, Home and End choose the next tab and move the focus to it. */
export function tabKeys<K extends string>(keys: readonly K[], current: K, choose: (k: K) => void) {
  return (e: KeyboardEvent) => {
    const i = keys.indexOf(current);
    const step = ({ ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 } as Record<string, number>)[e.key];
    const next = step ? keys[(i + step + keys.length) % keys.length] : e.key === 'Home' ? keys[0] : e.key === 'End' ? keys[keys.length - 1] : undefined;
    if (next === undefined) return;
    e.preventDefault();
    choose(next);
    const list = (e.currentTarget as HTMLElement).closest('[role="tablist"]');
    requestAnimationFrame(() => list?.querySelector<HTMLElement>(`[data-tab="${next}"]`)?.focus());
  };
}
