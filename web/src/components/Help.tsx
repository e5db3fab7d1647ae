import { t } from '../i18n';

export const SHORTCUTS: Array<[string, string]> = [
  ['c', 'New message to the current stream and topic'],
  ['x', 'New private message'],
  ['r or Enter', 'Reply to the selected message'],
  ['Esc', 'Close the compose box or this list; back to All messages'],
  ['n', 'Next unread topic'],
  ['j / k', 'Select the next / previous message'],
  ['/', 'Search'],
  ['*', 'Star or unstar the selected message'],
  ['>', 'Quote and reply to the selected message'],
  ['i', 'Open the actions menu of the selected message'],
  ['u', 'Show the sender\'s profile card'],
  ['Shift + I', 'Inbox'],
  ['t', 'Recent conversations'],
  ['d', 'Drafts'],
  ['?', 'This list'],
];

export function Help({ close }: { close: () => void }) {
  return (
    <div class="modal" role="dialog" aria-modal="true" aria-labelledby="help-title">
      <div class="modal-box">
        <h2 id="help-title">{t('Keyboard shortcuts')}</h2>
        <table>
          <tbody>{SHORTCUTS.map(([k, what]) => <tr key={k}><th scope="row"><kbd>{t(k)}</kbd></th><td>{t(what)}</td></tr>)}</tbody>
        </table>
        <button onClick={close}>{t('Close')}</button>
      </div>
    </div>
  );
}
