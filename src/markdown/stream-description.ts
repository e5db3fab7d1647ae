import { EMPTY_CONTEXT, renderMarkdown } from './index.js';

/**
 * Stream descriptions are limited markdown: Zulip's message renderer (emphasis, code,
 * links, emoji...), without mentions or stream links resolved, since a description is
 * shown to everyone who sees the stream whoever wrote it. Descriptions are single-line
 * by the time they get here.
 */
export function renderStreamDescription(text: string): string {
  if (text.trim() === '') return '';
  return renderMarkdown(text, EMPTY_CONTEXT).html;
}
