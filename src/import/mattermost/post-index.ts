/**
 * Where every message of export.json is: a post line's root or one of its replies, with its
 * date. Posts are not in date order in the file, and Zulip's format wants messages in
 * ascending id (which we hand out in date order), so the first pass records each message in
 * typed arrays (32 bytes a message: a million messages in 32 MB), the index is sorted,
 * and the second pass reads the lines back in that order.
 */
export class PostIndex {
  private size = 0;
  private createAt = new Float64Array(1024);
  private offset = new Float64Array(1024);
  private length = new Uint32Array(1024);
  private lineNo = new Uint32Array(1024);
  /** -1 for the post itself, else the index in its `replies`. */
  private reply = new Int32Array(1024);
  /** The conversation (an interned channel or direct-channel key), to keep only the team's. */
  private conversation = new Int32Array(1024);

  add(createAt: number, offset: number, length: number, lineNo: number, reply: number, conversation: number): void {
    if (this.size === this.createAt.length) this.grow();
    const i = this.size++;
    this.createAt[i] = createAt;
    this.offset[i] = offset;
    this.length[i] = length;
    this.lineNo[i] = lineNo;
    this.reply[i] = reply;
    this.conversation[i] = conversation;
  }

  /** The entries whose conversation is kept, by date; entries of one date stay in file order. */
  sorted(keep: (conversation: number) => boolean): Uint32Array {
    let n = 0;
    const order = new Uint32Array(this.size);
    for (let i = 0; i < this.size; i++) if (keep(this.conversation[i]!)) order[n++] = i;
    const at = this.createAt;
    return order.subarray(0, n).sort((a, b) => at[a]! - at[b]! || a - b);
  }

  entry(i: number): { createAt: number; offset: number; length: number; lineNo: number; reply: number; conversation: number } {
    return {
      createAt: this.createAt[i]!, offset: this.offset[i]!, length: this.length[i]!, lineNo: this.lineNo[i]!,
      reply: this.reply[i]!, conversation: this.conversation[i]!,
    };
  }

  private grow(): void {
    const n = this.createAt.length * 2;
    const widen = <T extends Float64Array | Uint32Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.createAt = widen(this.createAt, (k) => new Float64Array(k));
    this.offset = widen(this.offset, (k) => new Float64Array(k));
    this.length = widen(this.length, (k) => new Uint32Array(k));
    this.lineNo = widen(this.lineNo, (k) => new Uint32Array(k));
    this.reply = widen(this.reply, (k) => new Int32Array(k));
    this.conversation = widen(this.conversation, (k) => new Int32Array(k));
  }
}
