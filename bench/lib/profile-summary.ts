/**
 * `npx tsx bench/lib/profile-summary.ts <a.cpuprofile> [b.cpuprofile] [ops-a] [ops-b]`:
 * where a V8 CPU profile's time goes, as self time by area of code (Parley's folders,
 * each dependency, Node's internals, GC) and by function. Given two profiles and their
 * operation counts, it prints them per operation side by side with the difference: what
 * a cluster node spends that one process does not.
 */
import fs from 'node:fs';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Self time in ms by key, for two ways of grouping. */
function selfTimes(file: string): { byArea: Map<string, number>; byFunction: Map<string, number>; total: number } {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of self) {
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + ms);
    byArea.set(area(f), (byArea.get(area(f)) ?? 0) + ms);
    total += ms;
  }
  byArea.delete('(idle)');
  total -= self.get([...byId.values()].find((n) => n.callFrame.functionName === '(idle)')?.id ?? -1) ?? 0;
  return { byArea, byFunction, total };
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\/.*?\/(src|node_modules|bench)\//, '$1/');
}

function area(f: ProfileNode['callFrame']): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native)';
  const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(f.url);
  if (m) return `dep ${m[1]}`;
  const s = /\/src\/([^/]+)(\/[^/]+)?/.exec(f.url);
  if (s) return s[2] && s[1] !== 'lib' ? `src/${s[1]}${s[2].endsWith('.ts') ? `/${s[2].slice(1)}` : s[2]}` : `src/${s[1]}`;
  if (f.url.startsWith('node:')) return f.url.split('/').slice(0, 2).join('/');
  return '(other)';
}

const [fileA, fileB, opsA, opsB] = process.argv.slice(2);
if (!fileA) {
  process.stderr.write('usage: profile-summary.ts <a.cpuprofile> [b.cpuprofile] [ops-a] [ops-b]\n');
  process.exit(1);
}
const a = selfTimes(fileA);
const b = fileB ? selfTimes(fileB) : undefined;
const na = Number(opsA ?? 1);
const nb = Number(opsB ?? 1);
const unit = opsA ? 'ms per op' : 'ms';
const show = (title: string, ka: Map<string, number>, kb: Map<string, number> | undefined, top: number) => {
  const keys = new Set([...ka.keys(), ...(kb?.keys() ?? [])]);
  const rows = [...keys].map((k) => {
    const x = (ka.get(k) ?? 0) / na;
    const y = kb ? (kb.get(k) ?? 0) / nb : 0;
    return { k, x, y, d: y - x };
  }).sort((p, q) => (kb ? Math.abs(q.d) - Math.abs(p.d) : q.x - p.x)).slice(0, top);
  process.stdout.write(`\n${title} (${unit})\n`);
  for (const r of rows) process.stdout.write(`  ${r.x.toFixed(4).padStart(9)}${kb ? `  ${r.y.toFixed(4).padStart(9)}  ${(r.d >= 0 ? '+' : '') + r.d.toFixed(4)}`.padEnd(31) : ''}  ${r.k}\n`);
};
process.stdout.write(`total busy: ${(a.total / na).toFixed(3)}${b ? ` vs ${(b.total / nb).toFixed(3)}` : ''} ${unit}\n`);
show('self time by area', a.byArea, b?.byArea, 30);
show('self time by function', a.byFunction, b?.byFunction, 40);
