/**
 * Block Kit blocks and legacy attachments to markdown, as Zulip's
 * process_slack_block_and_attachment: when they render to something, that replaces the
 * message's text (people's own messages carry only rich_text blocks, which render to nothing).
 */
import { isObj, obj, objList, optStr, seconds, type Obj } from './json.js';

const join = (pieces: string[], sep = '\n\n') => pieces.map((p) => p.trim()).filter((p) => p !== '').join(sep);

const textOf = (v: unknown): string => (isObj(v) && typeof v.text === 'string' ? v.text : '');

function renderElement(el: Obj): string {
  if (el.type !== 'image') return '';
  return `[${optStr(el, 'alt_text') ?? ''}](${optStr(el, 'image_url') ?? ''})`;
}

function renderBlock(block: Obj): string {
  switch (block.type) {
    case 'context':
      return join(objList(block, 'elements').map((el) => (el.type === 'image' ? renderElement(el) : textOf(el))));
    case 'divider':
      return '----';
    case 'header':
      return `## ${textOf(block.text)}`;
    case 'image': {
      const title = textOf(block.title);
      return `[${title || (optStr(block, 'alt_text') ?? '')}](${optStr(block, 'image_url') ?? ''})`;
    }
    case 'section': {
      const pieces: string[] = [];
      if ('text' in block) pieces.push(textOf(block.text));
      const accessory = obj(block, 'accessory');
      if (accessory) pieces.push(renderElement(accessory));
      const fields = objList(block, 'fields').map(textOf);
      if (fields.length === 1) pieces.push(fields[0]!);
      else if (fields.length > 1) {
        // A table cannot hold newlines nor escape its pipes.
        const cells = fields.map((f) => f.replaceAll('\n', ' ').replaceAll('|', ' '));
        let table = '| | |\n|-|-|\n';
        for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
        pieces.push(table);
      }
      return join(pieces);
    }
    default:
      // rich_text repeats the text; actions, calls, files, inputs and tables have no markdown form.
      return '';
  }
}

/** requests' requote_uri: escape what a URL may not hold, keep what is escaped already. */
function requote(url: string): string {
  try {
    return encodeURI(decodeURI(url));
  } catch {
    return encodeURI(url);
  }
}

/** Zulip's datetime_to_global_time: a <time:...> that renders in each reader's zone. */
const globalTime = (unix: number) => `<time:${new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00')}>`;

function renderAttachment(a: Obj): string {
  const pieces: string[] = [];
  const title = optStr(a, 'title');
  if (title) {
    const link = optStr(a, 'title_link');
    pieces.push(link ? `## [${title}](${link})` : `## ${title}`);
  }
  for (const key of ['pretext', 'text']) {
    const v = optStr(a, key);
    if (v) pieces.push(v);
  }
  if ('fields' in a) {
    pieces.push(objList(a, 'fields').map((f) => {
      const t = optStr(f, 'title'), v = optStr(f, 'value');
      return t && v ? `*${t}*: ${v}` : t ? `*${t}*` : v ?? '';
    }).filter((s) => s !== '').join('\n'));
  }
  pieces.push(...objList(a, 'blocks').map(renderBlock));
  const image = optStr(a, 'image_url');
  if (image) pieces.push(`[](${requote(image)})`);
  const footer = optStr(a, 'footer');
  if (footer) pieces.push(footer);
  const ts = seconds(a.ts);
  if (ts !== undefined) pieces.push(globalTime(Math.trunc(ts)));
  return join(pieces);
}

export function renderBlocksAndAttachments(message: Obj): string {
  return join([...objList(message, 'blocks').map(renderBlock), ...objList(message, 'attachments').map(renderAttachment)], '\n');
}
