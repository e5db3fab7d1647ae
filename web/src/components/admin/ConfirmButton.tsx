/** A destructive button asked twice, in place (no browser dialog): the first press turns it into "question" and Cancel. */
import { useState } from 'preact/hooks';
import { t } from '../../i18n';

export function ConfirmButton({ label, aria, question, act }: { label: string; aria?: string; question: string; act: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <button type="button" class="danger" aria-label={aria} onClick={() => setAsking(true)}>{label}</button>;
  return (
    <span class="admin-inline">
      <button type="button" class="danger" ref={(el) => el?.focus()} onClick={() => { setAsking(false); act(); }}>{question}</button>
      <button type="button" onClick={() => setAsking(false)}>{t('Cancel')}</button>
    </span>
  );
}
