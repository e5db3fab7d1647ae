/**
 * A bounded in-process job pool: at most `concurrency` jobs run at once and at most
 * `backlog` are held (waiting, running, or parked until a retry), so that a slow or dead
 * endpoint costs memory and sockets within known limits. Nothing here is durable: what
 * the pool holds when the process stops is lost (logged).
 */
export interface PoolLimits {
  concurrency: number;
  backlog: number;
}

/** What a run asks for next: the same job again after a pause (a retry), any number of times. */
export interface Again<J> {
  job: J;
  delayMs: number;
}

export type RunJob<J> = (job: J, signal: AbortSignal) => Promise<Array<Again<J>>>;

export class JobPool<J> {
  private readonly waiting: J[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly parked = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private held = 0;
  private stopped = false;

  constructor(private readonly runJob: RunJob<J>, private readonly limits: PoolLimits, private readonly onError: (err: unknown) => void) {}

  /** Jobs accepted and not finished. */
  get size(): number {
    return this.held;
  }

  /** Accepts `job` unless the backlog is full or the pool has stopped; never waits. */
  offer(job: J): boolean {
    if (this.stopped || this.held >= this.limits.backlog) return false;
    this.held += 1;
    this.waiting.push(job);
    this.pump();
    return true;
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.limits.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      const p: Promise<void> = this.runOne(job).finally(() => {
        this.running.delete(p);
        this.pump();
      });
      this.running.add(p);
    }
  }

  private async runOne(job: J): Promise<void> {
    let again: Array<Again<J>> = [];
    try {
      again = await this.runJob(job, this.abort.signal);
    } catch (err) {
      this.onError(err);
    }
    this.held -= 1;
    if (this.stopped) return;
    // A retry keeps its place in the backlog while parked: it was accepted once already.
    for (const a of again) {
      this.held += 1;
      const timer = setTimeout(() => {
        this.parked.delete(timer);
        if (this.stopped) return;
        this.waiting.unshift(a.job);
        this.pump();
      }, a.delayMs);
      timer.unref();
      this.parked.add(timer);
    }
  }

  /**
   * Takes nothing more and drops what waits or is parked; lets running jobs finish for up
   * to `graceMs`, then aborts their signal and waits for them to settle. Answers how many
   * jobs were dropped or cut off.
   */
  async stop(graceMs: number): Promise<number> {
    if (this.stopped) return 0;
    this.stopped = true;
    for (const t of this.parked) clearTimeout(t);
    let dropped = this.waiting.length + this.parked.size;
    this.parked.clear();
    this.waiting.length = 0;
    if (this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), graceMs); });
      const outcome = await Promise.race([Promise.allSettled([...this.running]).then(() => 'done' as const), graceOver]);
      clearTimeout(timer);
      if (outcome === 'late') {
        dropped += this.running.size;
        this.abort.abort(new Error('shutting down'));
        await Promise.allSettled([...this.running]);
      }
    }
    this.held = 0;
    return dropped;
  }
}
