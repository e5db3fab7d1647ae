/**
 * A person's picture: the API's `avatar_url`, or their initials when there is none or it does
 * not load (gravatar from a machine offline, a deleted upload). A URL that failed once is
 * remembered for the page's life, so a row scrolled back into the window shows the initials
 * at once instead of asking again.
 */
import { useState } from 'preact/hooks';

const failed = new Set<string>();

export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words[words.length - 1]!] : words;
  return letters.map((w) => [...w][0]!.toUpperCase()).join('') || '?';
}

/** A stable colour per person, so the same initials look the same everywhere. */
function hue(key: number | string): number {
  let h = 0;
  for (const c of String(key)) h = (h * 31 + c.charCodeAt(0)) % 360;
  return h;
}

export function Avatar({ url, name, userId, size = 'small' }: { url: string | null | undefined; name: string; userId: number; size?: 'small' | 'large' }) {
  const [, setBroken] = useState(0);
  if (url && !failed.has(url)) {
    return <img class={`avatar ${size}`} src={url} alt="" loading="lazy" onError={() => { failed.add(url); setBroken((n) => n + 1); }} />;
  }
  // Decorative beside the name it stands for: hidden from screen readers, as the image's empty alt is.
  return <span class={`avatar initials ${size}`} aria-hidden="true" style={{ backgroundColor: `hsl(${hue(userId)} 40% 30%)` }}>{initials(name)}</span>;
}
