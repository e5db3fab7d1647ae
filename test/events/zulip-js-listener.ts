// Run by test/events/queues.test.ts in its own process: zulip-js's callOnEachEvent never
// returns, so the process prints the first message event it gets and exits.
import zulip from 'zulip-js';

const [realm, username, apiKey] = process.argv.slice(2);
const client = await zulip({ realm: realm!, username: username!, apiKey: apiKey! });
void client.callOnEachEvent((event: { type: string }) => {
  if (event.type === 'message') {
    process.stdout.write(`${JSON.stringify(event)}\n`);
    process.exit(0);
  }
}, ['message']);
setTimeout(() => process.exit(2), 20_000).unref();
