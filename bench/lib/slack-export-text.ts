/**
 * The deterministic pieces of a generated Slack export: a seeded random source and message
 * text in Slack's markup (mentions `<@U..>`, channel links `<#C..|name>`, links
 * `<url|text>` and `<url>`, `*bold*`, `_italic_`, `~strike~`, emoji `:name:`, code), so
 * that a converter's markup translation costs what it costs on real exports.
 */

/** mulberry32: small, fast, and the same sequence on every machine for a seed. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  /** 1, 2, 3... with the given mean: most runs short, a few long. */
  geometric(mean: number, max: number): number {
    const p = 1 / mean;
    let n = 1;
    while (n < max && this.next() > p) n++;
    return n;
  }
  /** k distinct values of 0..n-1 (partial Fisher-Yates over a scratch array). */
  sample(n: number, k: number, scratch: number[] = []): number[] {
    for (let i = 0; i < n; i++) scratch[i] = i;
    const out: number[] = [];
    for (let i = 0; i < Math.min(k, n); i++) {
      const j = i + this.int(n - i);
      const t = scratch[i]!;
      scratch[i] = scratch[j]!;
      scratch[j] = t;
      out.push(scratch[i]!);
    }
    return out;
  }
}

/** Weighted choice by binary search over cumulative weights. */
export class Weighted {
  private readonly cum: Float64Array;
  constructor(weights: readonly number[]) {
    this.cum = new Float64Array(weights.length);
    let t = 0;
    weights.forEach((w, i) => { t += w; this.cum[i] = t; });
  }
  pick(rng: Rng): number {
    const x = rng.next() * this.cum[this.cum.length - 1]!;
    let lo = 0;
    let hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cum[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

const WORDS = (
  'the a we it this that is was be to of and in for on with as at by from our your their deploy release build test review ' +
  'merge branch ticket customer issue fix bug feature design meeting call sync notes plan roadmap sprint demo backlog ' +
  'quarter budget report numbers dashboard metrics latency error logs alert page incident rollout migration schema ' +
  'database cache queue worker server client api endpoint docs draft proposal feedback question answer today tomorrow ' +
  'yesterday later soon after before maybe probably definitely think looks good great thanks sure agreed works broken ' +
  'slow fast done blocked waiting ready shipped staging production config flag team everyone folks lunch coffee weekend ' +
  'holiday office remote update status check still need should could would can will please help anyone know'
).split(' ');

const EMOJI = ['smile', 'thumbsup', '+1', 'tada', 'eyes', 'rocket', 'joy', 'heart', 'fire', 'pray', 'white_check_mark', 'thinking_face', 'sweat_smile', '100'];
export const REACTIONS = ['+1', 'thumbsup', 'heart', 'joy', 'tada', 'eyes', 'white_check_mark', 'pray', 'fire', 'rocket', '100', 'raised_hands', 'clap::skin-tone-2', 'slightly_smiling_face'];
const SITES = ['https://github.com/acme/widgets/pull/', 'https://docs.example.com/guide/', 'https://jira.example.com/browse/OPS-', 'https://en.wikipedia.org/wiki/Item_', 'https://status.example.net/incidents/'];
const LINK_TEXT = ['the PR', 'this doc', 'ticket', 'see here', 'dashboard', 'the runbook', 'notes'];

export interface TextRefs {
  /** Slack ids of the people who may be mentioned (the conversation's members). */
  mentionable: () => string;
  /** A channel link target: `<#C..|name>`. */
  channel: () => { id: string; name: string };
}

/** One message's text: a sentence or two with, at Slack-export-like rates, every kind of markup. */
export function messageText(rng: Rng, refs: TextRefs): string {
  const n = 4 + rng.int(14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(rng.pick(WORDS));
  const at = (w: string) => words.splice(rng.int(words.length + 1), 0, w);
  if (rng.chance(0.08)) at(`<@${refs.mentionable()}>`);
  if (rng.chance(0.02)) at(`<@${refs.mentionable()}>`);
  if (rng.chance(0.02)) {
    const c = refs.channel();
    at(`<#${c.id}|${c.name}>`);
  }
  if (rng.chance(0.03)) at(`<${rng.pick(SITES)}${1 + rng.int(5000)}|${rng.pick(LINK_TEXT)}>`);
  if (rng.chance(0.015)) at(`<${rng.pick(SITES)}${1 + rng.int(5000)}>`);
  if (rng.chance(0.05)) at(`*${rng.pick(WORDS)} ${rng.pick(WORDS)}*`);
  if (rng.chance(0.02)) at(`_${rng.pick(WORDS)}_`);
  if (rng.chance(0.005)) at(`~${rng.pick(WORDS)}~`);
  if (rng.chance(0.06)) at(`:${rng.pick(EMOJI)}:`);
  if (rng.chance(0.003)) at(rng.chance(0.5) ? '<!here>' : '<!channel>');
  let text = words.join(' ');
  text = text.charAt(0).toUpperCase() + text.slice(1);
  if (rng.chance(0.01)) text += `\n\`\`\`\n${rng.pick(WORDS)}(${rng.int(100)})\n\`\`\``;
  else if (rng.chance(0.02)) text += ` \`${rng.pick(WORDS)}\``;
  // Slack escapes these three in exported text; what a converter must undo.
  if (rng.chance(0.01)) text += ' &amp; &lt;3 &gt;';
  return text;
}

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dan', 'Eva', 'Femi', 'Grace', 'Hiro', 'Ines', 'Jon', 'Kira', 'Liam', 'Maya', 'Nils', 'Olga', 'Pia', 'Quinn', 'Raj', 'Sara', 'Tom', 'Uma', 'Vik', 'Wen', 'Xavi', 'Yara', 'Zoe', 'José', 'Zoë', 'Søren', 'Łukasz'];
const LAST = ['Adams', 'Baker', 'Chen', 'Diaz', 'Evans', 'Fischer', 'Garcia', 'Hansen', 'Ito', 'Jones', 'Kim', 'Lopez', 'Müller', 'Novak', 'Okafor', 'Patel', 'Quist', 'Rossi', 'Silva', 'Tanaka', 'Ueda', 'Varga', 'Wang', 'Xu', 'Young', 'Zhang'];
const CHANNEL_AREAS = ['eng', 'design', 'sales', 'support', 'ops', 'product', 'data', 'marketing', 'people', 'finance', 'security', 'infra', 'mobile', 'web', 'qa', 'legal'];
const CHANNEL_TOPICS = ['team', 'standup', 'alerts', 'releases', 'help', 'announce', 'random', 'planning', 'reviews', 'oncall', 'emea', 'us', 'apac', 'hiring', 'social', 'builds'];

export function personName(i: number): { first: string; last: string } {
  return { first: FIRST[i % FIRST.length]!, last: LAST[Math.floor(i / FIRST.length) % LAST.length]! };
}

/** Distinct, Slack-valid channel names: `general`, `random`, then `<area>-<topic>`. */
export function channelName(i: number): string {
  if (i === 0) return 'general';
  if (i === 1) return 'random';
  const k = i - 2;
  const name = `${CHANNEL_AREAS[k % CHANNEL_AREAS.length]}-${CHANNEL_TOPICS[Math.floor(k / CHANNEL_AREAS.length) % CHANNEL_TOPICS.length]}`;
  const round = Math.floor(k / (CHANNEL_AREAS.length * CHANNEL_TOPICS.length));
  return round === 0 ? name : `${name}-${round + 1}`;
}

/** Slack-shaped ids: a kind letter and ten base-36 characters, in order of `i`. */
export function slackId(kind: 'U' | 'C' | 'G' | 'D' | 'B', i: number): string {
  return `${kind}${(1_000_000_000 + i).toString(36).toUpperCase().padStart(10, '0')}`;
}
