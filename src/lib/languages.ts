/**
 * The languages a user may choose as default_language: the codes of Zulip's
 * language_name_map, with their names as the settings UI and update_display_settings
 * (`language_name`) show them.
 */
export const LANGUAGE_NAMES: ReadonlyMap<string, string> = new Map([
  ['ar', 'العربيّة'], ['be', 'Беларуская'], ['bg', 'Български'], ['bn', 'বাংলা'], ['ca', 'Català'], ['cs', 'Čeština'],
  ['cy', 'Cymraeg'], ['da', 'Dansk'], ['de', 'Deutsch'], ['el', 'Ελληνικά'], ['en', 'English'], ['en_GB', 'British English'],
  ['eo', 'Esperanto'], ['es', 'Español'], ['fa', 'فارسی'], ['fi', 'Suomi'], ['fr', 'Français'], ['gl', 'Galego'],
  ['gu', 'ગુજરાતી'], ['hi', 'हिंदी'], ['hu', 'Magyar'], ['id', 'Bahasa Indonesia'], ['it', 'Italiano'], ['ja', '日本語'],
  ['ko', '한국어'], ['lt', 'Lietuviškai'], ['lv', 'Latviešu'], ['ml', 'മലയാളം'], ['mn', 'Монгол'], ['nl', 'Nederlands'],
  ['no', 'Norsk'], ['pl', 'Polski'], ['pt', 'Português'], ['pt_BR', 'Português Brasileiro'], ['pt_PT', 'Português Europeu'],
  ['ro', 'Română'], ['ru', 'Русский'], ['si', 'සිංහල'], ['sk', 'Slovenčina'], ['sr', 'Српски'], ['sv', 'Svenska'],
  ['ta', 'தமிழ்'], ['te', 'తెలుగు'], ['tl', 'Tagalog'], ['tr', 'Türkçe'], ['uk', 'Українська'], ['uz', "O'zbek"],
  ['vi', 'Tiếng Việt'], ['zh-hans', '简体中文'], ['zh-hant', '繁體中文'], ['zh_TW', '繁體中文 (台灣)'],
]);
