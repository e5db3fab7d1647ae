import { escapeHtml } from '../markdown/html.js';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Wraps words starting with a search term in `<span class="highlight">`, in text only:
 * never inside a tag, and never inside a character reference (`&quot;` holds "quot").
 */
export function highlightHtml(html: string, words: string[]): string {
  if (words.length === 0) return html;
  const re = new RegExp(`(^|[^\\p{L}\\p{N}_])((?:${words.map(escapeRegex).join('|')})[\\p{L}\\p{N}_]*)`, 'giu');
  return html.split(/(<[^>]*>|&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);)/)
    .map((part) => (part.startsWith('<') || part.startsWith('&') ? part : part.replace(re, '$1<span class="highlight">$2</span>'))).join('');
}

export function highlightTopic(topic: string, words: string[]): string {
  return highlightHtml(escapeHtml(topic), words);
}
