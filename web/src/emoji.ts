/**
 * The emoji the picker and `:name:` autocomplete offer: common ones by the names the server
 * knows (emoji-datasource's short names), plus the organization's custom emoji from register.
 * A fuller list would be fetched lazily; these keep the first paint's bundle small.
 */
export const COMMON_EMOJI: Array<[name: string, code: string]> = [
  ['+1', '1f44d'], ['smile', '1f604'], ['heart', '2764'], ['tada', '1f389'], ['joy', '1f602'],
  ['eyes', '1f440'], ['rocket', '1f680'], ['thinking_face', '1f914'], ['white_check_mark', '2705'],
  ['pray', '1f64f'], ['fire', '1f525'], ['clap', '1f44f'], ['wave', '1f44b'], ['octopus', '1f419'],
  ['cry', '1f622'], ['sunglasses', '1f60e'], ['100', '1f4af'], ['-1', '1f44e'], ['ok_hand', '1f44c'],
  ['star', '2b50'], ['coffee', '2615'], ['pizza', '1f355'], ['bulb', '1f4a1'], ['warning', '26a0'],
  ['muscle', '1f4aa'], ['sparkles', '2728'], ['laughing', '1f606'], ['slightly_smiling_face', '1f642'],
  ['thumbsup', '1f44d'], ['heart_eyes', '1f60d'], ['sob', '1f62d'], ['x', '274c'],
];

export const glyph = (code: string) => {
  try {
    return String.fromCodePoint(...code.split('-').map((h) => parseInt(h, 16)));
  } catch {
    return '?';
  }
};
