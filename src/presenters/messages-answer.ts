import { flagsFromMask } from '../lib/message-flags.js';

const flagJsonByMask = new Map<string, string>();

function flagsJson(mask: number | null, featureLevel: number): string {
  const key = `${mask}|${featureLevel}`;
  let json = flagJsonByMask.get(key);
  if (json === undefined) {
    json = JSON.stringify(flagsFromMask(mask, featureLevel));
    flagJsonByMask.set(key, json);
  }
  return json;
}

/** A GET /messages answer from serialised messages (without flags), each with this reader's flags spliced in. */
export function messagesAnswer(meta: Record<string, unknown>, messages: Array<{ id: number; json: string }>, flags: Map<number, number | null>, featureLevel = 122): string {
  let out = `${JSON.stringify({ result: 'success', msg: '', ...meta }).slice(0, -1)},"messages":[`;
  for (let i = 0; i < messages.length; i++) {
    const { id, json } = messages[i]!;
    out += `${i > 0 ? ',' : ''}${json.slice(0, -1)},"flags":${flagsJson(flags.get(id) ?? null, featureLevel)}}`;
  }
  return `${out}]}`;
}
