import type { FastifyReply } from 'fastify';

/**
 * The few pages single sign-on shows outside the web app: a refusal, the desktop app's
 * hand-over pages (Zulip's desktop_login.html and desktop_redirect.html). Plain HTML,
 * scripts only from Parley's own address, nothing from the request unescaped.
 */
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#222}
h1{font-size:1.4rem}input{width:100%;font:inherit;padding:.4rem;box-sizing:border-box}button,a.button{font:inherit;padding:.4rem 1rem;margin-top:.6rem}
.error{color:#a00}`;

function page(title: string, body: string, script?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Parley</title><style>${STYLE}</style></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>${script ? `<script src="${script}"></script>` : ''}</body></html>
`;
}

export function sendPage(reply: FastifyReply, status: number, title: string, body: string, script?: string): Record<string, never> {
  void reply.status(status).headers(HEADERS).send(page(title, body, script));
  return {};
}

/** A sign-in that did not happen: what went wrong, and the way back. */
export function sendRefusalPage(reply: FastifyReply, status: number, message: string): Record<string, never> {
  return sendPage(reply, status, 'Sign-in failed', `<p class="error" role="alert">${escapeHtml(message)}</p>
<p><a href="/login">Back to the sign-in page</a></p>`);
}

export const DESKTOP_LOGIN_SCRIPT = '/accounts/login/desktop-login.js';
export const DESKTOP_REDIRECT_SCRIPT = '/accounts/login/desktop-redirect.js';

/** Zulip's desktop_login.html: in the desktop app, the sign-in continues in the system browser. */
export function sendDesktopLoginPage(reply: FastifyReply): Record<string, never> {
  return sendPage(reply, 200, 'Finish signing in in your browser', `<p>A browser window has opened to sign you in. When it shows a code,
copy it and paste it here (recent versions of the desktop app read it from the clipboard themselves).</p>
<form id="form"><label for="token">Code</label><input id="token" autocomplete="off" spellcheck="false">
<button id="submit" type="submit" disabled>Sign in</button></form>
<p id="bad-token" class="error" hidden>That code is not right. Copy the whole code from the browser window.</p>
<p id="done" hidden>Signing in…</p>`, DESKTOP_LOGIN_SCRIPT);
}

/** Zulip's desktop_redirect.html: the browser's half, the encrypted login token to hand to the app. */
export function sendDesktopRedirectPage(reply: FastifyReply, desktopData: string, realmName: string): Record<string, never> {
  return sendPage(reply, 200, 'Return to the desktop app', `<p>You signed in to ${escapeHtml(realmName)}. Copy this code and return to the
Zulip desktop app; it finishes signing in within 15 seconds.</p>
<input id="desktop-data" readonly value="${escapeHtml(desktopData)}">
<button id="copy" type="button" data-clipboard-text="${escapeHtml(desktopData)}">Copy code</button>
<p><a href="/login">Or sign in in this browser instead</a></p>`, DESKTOP_REDIRECT_SCRIPT);
}

/**
 * desktop_login's script (Zulip's portico/desktop-login.ts, the same protocol): an AES-GCM
 * key made here goes to the browser as desktop_flow_otp; what comes back, pasted or read
 * from the clipboard by the app, decrypts to a login token for /accounts/login/subdomain/.
 */
export const DESKTOP_LOGIN_JS = `(async () => {
  const form = document.getElementById('form'), input = document.getElementById('token');
  const bad = document.getElementById('bad-token'), submit = document.getElementById('submit');
  form.addEventListener('submit', (e) => { e.preventDefault(); bad.hidden = false; });
  input.focus();
  let key, pasted;
  if (window.electron_bridge && window.electron_bridge.decrypt_clipboard) {
    ({ key, pasted } = window.electron_bridge.decrypt_clipboard(1));
  } else {
    const k = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['decrypt']);
    key = new Uint8Array(await crypto.subtle.exportKey('raw', k));
    pasted = new Promise((resolve) => input.addEventListener('input', async () => {
      bad.hidden = true;
      submit.disabled = input.value === '';
      try {
        const data = new Uint8Array((input.value.trim().match(/../g) || []).map((b) => parseInt(b, 16)));
        const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: data.slice(0, 12) }, k, data.slice(12));
        resolve(new TextDecoder().decode(plain));
      } catch (err) { /* not the whole code yet */ }
    }));
  }
  const hex = Array.from(key, (b) => b.toString(16).padStart(2, '0')).join('');
  window.open((location.search ? location.search + '&' : '?') + 'desktop_flow_otp=' + encodeURIComponent(hex), '_blank');
  const token = await pasted;
  form.hidden = true;
  document.getElementById('done').hidden = false;
  location.href = '/accounts/login/subdomain/' + encodeURIComponent(token);
})();
`;

export const DESKTOP_REDIRECT_JS = `(() => {
  const button = document.getElementById('copy');
  button.focus();
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.clipboardText);
      button.textContent = 'Copied';
    } catch (err) {
      const field = document.getElementById('desktop-data');
      field.select();
      document.execCommand('copy');
    }
  });
})();
`;
