import fs from 'node:fs';
import { once } from 'node:events';
import type { Row } from '../import/source.js';

/**
 * A JSON object of tables (`{"zerver_x": [rows...], ...}`, as realm.json and attachment.json)
 * written to a file row by row, so that a table read a page at a time is never whole in memory.
 */
export class JsonTablesFile {
  private out: fs.WriteStream;
  private tables = 0;
  private rowsInTable = 0;

  /** `list`: the file is one bare array of rows (a records.json) rather than an object of tables. */
  constructor(readonly path: string, private list = false) {
    this.out = fs.createWriteStream(path, { mode: 0o600 });
    this.out.write(list ? '[' : '{');
  }

  private async write(s: string): Promise<void> {
    if (!this.out.write(s)) await once(this.out, 'drain');
  }

  async begin(name: string): Promise<void> {
    await this.write(`${this.tables++ > 0 ? ',' : ''}\n${JSON.stringify(name)}:[`);
    this.rowsInTable = 0;
  }

  async row(row: Row): Promise<void> {
    await this.write(`${this.rowsInTable++ > 0 ? ',' : ''}\n${JSON.stringify(row)}`);
  }

  async end(): Promise<void> {
    await this.write(']');
  }

  async table(name: string, rows: Iterable<Row>): Promise<void> {
    await this.begin(name);
    for (const r of rows) await this.row(r);
    await this.end();
  }

  async close(): Promise<void> {
    this.out.end(this.list ? '\n]\n' : '\n}\n');
    await once(this.out, 'finish');
  }

  /** After a failure: release the file (the caller removes it). */
  destroy(): void {
    this.out.destroy();
  }
}
