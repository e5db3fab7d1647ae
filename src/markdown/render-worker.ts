/**
 * The body of the markdown pool's threads (see bounded.ts): one render per task, the
 * context arriving as a snapshot. The result crosses back by structured clone (Sets included).
 */
import { renderMarkdown, type RenderResult } from './index.js';
import { contextOfSnapshot, type ContextSnapshot } from './snapshot.js';

export default function render(task: { content: string; snapshot: ContextSnapshot }): RenderResult {
  return renderMarkdown(task.content, contextOfSnapshot(task.snapshot));
}
