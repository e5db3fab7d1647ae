/**
 * The organization a simulated-user run starts from, as plain data both seeders follow:
 * users, streams, who is subscribed where (each user in `subs` streams picked by a fixed
 * pseudo-random sequence, so every stream has about users × subs / streams members), and
 * the history messages.
 */
export interface SimUser { email: string; apiKey: string; password?: string }
export interface SeedProgress { stage: string; done: number; total: number }

export interface Shape { users: number; streams: number; subs: number; history: number; loginUsers: number; prefix: string }

export const emailOf = (shape: Shape, i: number) => `${shape.prefix}${i}@sim.test`;
export const nameOf = (i: number) => `Sim User ${i}`;
export const streamNameOf = (s: number) => `sim stream ${s}`;
export const passwordOf = (shape: Shape, i: number) => (i < shape.loginUsers ? `sim-password-${shape.prefix}-${i}` : undefined);
export const TOPICS = ['planning', 'release', 'lunch', 'bugs', 'random'];

/** A small deterministic generator (mulberry32), so two runs seed the same organization. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** members[s] = indices of the users subscribed to stream s. */
export function membership(shape: Shape): number[][] {
  const rand = prng(24);
  const members: number[][] = Array.from({ length: shape.streams }, () => []);
  const subs = Math.min(shape.subs, shape.streams);
  for (let i = 0; i < shape.users; i++) {
    const picked = new Set<number>();
    while (picked.size < subs) picked.add(Math.floor(rand() * shape.streams));
    for (const s of picked) members[s]!.push(i);
  }
  return members;
}

/** The history: [stream, sender index, topic, content] in sending order. */
export function* history(shape: Shape, members: number[][]): Generator<[number, number, string, string]> {
  const rand = prng(25);
  for (let m = 0; m < shape.history; m++) {
    for (let s = 0; s < shape.streams; s++) {
      const list = members[s]!;
      if (list.length === 0) continue;
      const sender = list[Math.floor(rand() * list.length)]!;
      yield [s, sender, TOPICS[m % TOPICS.length]!, `Earlier message ${m} in this stream, seeded before the run. It has **some** markdown and a [link](https://example.com/${m}).`];
    }
  }
}
