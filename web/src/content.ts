/**
 * Message HTML as the server renders it, made ready for this page. Zulip's rendering (and
 * Parley's) gives a bare `<a href>`: each client decides how a link opens. Here a link that
 * leaves the app opens in a new tab, without giving that tab a handle on this one; links
 * into the app (`#narrow/...`, `/#narrow/...`) stay in it, as in Zulip's web app.
 */
const LINK = /<a((?:\s+[a-zA-Z-]+="[^"]*")*)>/g;

export function withLinkTargets(html: string): string {
  if (!html.includes('<a ')) return html;
  return html.replace(LINK, (tag: string, attrs: string) => {
    const href = /\shref="([^"]*)"/.exec(attrs)?.[1];
    if (href === undefined || href.startsWith('#') || href.startsWith('/#') || /\starget="/.test(attrs)) return tag;
    return `<a${attrs} target="_blank" rel="noopener noreferrer">`;
  });
}

/**
 * A code block scrolls sideways when its lines are long: focusable, so that the keyboard can
 * scroll it too (axe's scrollable-region-focusable; Zulip's web app does the same for code).
 */
export function withFocusableCode(html: string): string {
  return html.includes('<pre') ? html.replace(/<pre(?=[\s>])(?![^>]*\stabindex=)/g, '<pre tabindex="0"') : html;
}
