/** The message retention period of a stream (owners): the organization's default, forever, or some days. */
import { t } from '../../i18n';

export type Retention = { mode: 'default' | 'unlimited' | 'days'; days: string };

export const retentionOf = (v: number | null | undefined): Retention =>
  v === null || v === undefined ? { mode: 'default', days: '' } : v === -1 ? { mode: 'unlimited', days: '' } : { mode: 'days', days: String(v) };

/** The API's `message_retention_days`: "realm_default", "unlimited" or a number; null when the days are not a number. */
export function retentionParam(r: Retention): string | number | null {
  if (r.mode === 'default') return 'realm_default';
  if (r.mode === 'unlimited') return 'unlimited';
  const n = Number(r.days);
  return Number.isInteger(n) && n > 0 ? n : null;
}

export function RetentionField({ value, onChange, name }: { value: Retention; onChange: (r: Retention) => void; name: string }) {
  return (
    <fieldset class="streams-retention">
      <legend>{t('Message retention period')}</legend>
      <label class="stack">{t('Messages are kept')}
        <select name={name} value={value.mode} onChange={(e) => onChange({ ...value, mode: e.currentTarget.value as Retention['mode'] })}>
          <option value="default">{t('Use organization level settings')}</option>
          <option value="unlimited">{t('Retain forever')}</option>
          <option value="days">{t('Custom period')}</option>
        </select>
      </label>
      {value.mode === 'days' && (
        <label class="stack">{t('Retention period (days)')}
          <input type="number" min={1} inputMode="numeric" value={value.days} onInput={(e) => onChange({ ...value, days: e.currentTarget.value })} />
        </label>
      )}
    </fieldset>
  );
}
