import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { testApp, people, type TestApp, type TestUser } from '../helpers/app.js';
import { sendMessage } from '../helpers/messages.js';
import { uploadOne } from '../helpers/multipart.js';
import { attachments } from '../../src/store/repos/attachments.js';
import { imageSize } from '../../src/uploads/image-size.js';
import { renderMarkdown, EMPTY_CONTEXT } from '../../src/markdown/index.js';

/** Levels 276/277: previews of uploaded images carry data-original-dimensions (migration 050 keeps the size). */
const apps: TestApp[] = [];
after(() => Promise.all(apps.map((a) => a.close())));

async function setUp(featureLevel: number): Promise<{ t: TestApp; alice: TestUser }> {
  const t = await testApp({ featureLevel });
  apps.push(t);
  const { alice } = await t.createUsers(people('alice'));
  return { t, alice: alice! };
}

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#336699' } }).png().toBuffer();
const rendered = async (t: TestApp, as: TestUser, id: number): Promise<string> =>
  (await t.api('GET', `/api/v1/messages/${id}`, { as })).body.message.content;

for (const level of [122, 277]) {
  test(`level ${level}: an uploaded PNG linked in a message gets Zulip's inline preview${level >= 276 ? ' with its original dimensions' : ', without the 276 attribute'}`, async () => {
    const { t, alice } = await setUp(level);
    const uri = await uploadOne(t, alice, 'pic.png', await png(300, 200));
    const row = await attachments.findByPathId(t.app.ctx.store.db, uri.slice('/user_uploads/'.length));
    assert.deepEqual([row?.image_width, row?.image_height], [300, 200]);
    const dims = level >= 276 ? ' data-original-dimensions="300x200"' : '';
    const preview = `<div class="message_inline_image"><a href="${uri}" title="pic.png"><img${dims} src="${uri}"></a></div>`;
    // The link alone: only the preview, as Zulip.
    const only = await sendMessage(t, alice, { type: 'private', to: [alice.id], content: `[pic.png](${uri})` });
    assert.equal(await rendered(t, alice, only), preview);
    // With text: the paragraph stays, the preview follows it.
    const withText = await sendMessage(t, alice, { type: 'private', to: [alice.id], content: `look [pic.png](${uri})` });
    assert.equal(await rendered(t, alice, withText), `<p>look <a href="${uri}">pic.png</a></p>\n${preview}`);
    // A file that is not an image has no size and no preview.
    const txt = await uploadOne(t, alice, 'notes.txt', 'hello');
    const txtRow = await attachments.findByPathId(t.app.ctx.store.db, txt.slice('/user_uploads/'.length));
    assert.deepEqual([txtRow?.image_width, txtRow?.image_height], [null, null]);
    const plain = await sendMessage(t, alice, { type: 'private', to: [alice.id], content: `[notes.txt](${txt})` });
    assert.equal(await rendered(t, alice, plain), `<p><a href="${txt}">notes.txt</a></p>`);
  });
}

test('the size comes from the first bytes: a PNG, and GIF and WebP headers libvips cannot read cut short', async () => {
  const noisy = (fmt: 'png' | 'gif' | 'webp') => sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })[fmt]().toBuffer();
  for (const fmt of ['png', 'gif', 'webp'] as const) {
    const whole = await noisy(fmt);
    assert.deepEqual(await imageSize(whole.subarray(0, 4096)), { width: 320, height: 240 }, fmt);
  }
  assert.equal(await imageSize(Buffer.from('not an image')), undefined);
});

test('a preview is made only for an upload the context knows; typed HTML or a foreign image stays text', () => {
  const images = new Map([['2/ab/x/pic.png', { width: 4, height: 3 }]]);
  const r = renderMarkdown('[a](/user_uploads/2/ab/x/pic.png) [b](/user_uploads/2/ab/x/pic.png) [c](/user_uploads/2/ab/y/other.png) <img src="/user_uploads/2/ab/x/pic.png">', { ...EMPTY_CONTEXT, uploadedImages: images, featureLevel: 277 });
  // One preview per file (Zulip's deduplication), none for an unknown file, typed HTML escaped.
  assert.equal(r.html.match(/<img/g)?.length, 1);
  assert.ok(r.html.includes('&lt;img src='));
  assert.ok(r.html.endsWith('<div class="message_inline_image"><a href="/user_uploads/2/ab/x/pic.png" title="a"><img data-original-dimensions="4x3" src="/user_uploads/2/ab/x/pic.png"></a></div>'));
});
