import type { Integration } from './types.js';

/** Zulip's sample integration (zerver/webhooks/helloworld): the Wikipedia article of the day. */
export const helloworld: Integration = {
  displayName: 'HelloWorld',
  listedName: 'Hello World',
  payload: 'json',
  handle: ({ payload }) => {
    const title = payload.at('featured_title').str();
    const url = payload.at('featured_url').str();
    return {
      topic: 'Hello World',
      body: `Hello! I am happy to be here! :smile:\nThe Wikipedia featured article for today is **[${title}](${url})**`,
    };
  },
};
