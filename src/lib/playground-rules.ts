import { isValidUrlTemplate, templateVariables } from './url-template.js';

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;
/** Level 196 replaced url_prefix by url_template. */
export const PLAYGROUND_TEMPLATE_LEVEL = 196;

// The view's check (any case, spaces) and, from level 196, the model's (lower case, no spaces).
const VIEW_LANGUAGE = /^[ a-zA-Z0-9_+\-./#]*$/;
const MODEL_LANGUAGE = /^[a-z0-9_+\-./#]+$/;
const OLD_MODEL_LANGUAGE = /^[a-zA-Z0-9_+\-./#]+$/;

/** The view's check_pygments_language: an error message, or undefined. */
export function checkPygmentsLanguageParam(value: string): string | undefined {
  if (value.length > MAX_PYGMENTS_LANGUAGE_LENGTH) return `pygments_language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`;
  if (!VIEW_LANGUAGE.test(value)) return 'Invalid characters in pygments language';
  return undefined;
}

export type PlaygroundErrors = Record<string, string[]>;

/**
 * RealmPlayground.full_clean, fields in the model's order (url_template, name,
 * pygments_language), then clean()'s checks of the template's variables.
 */
export function checkPlayground(name: string, language: string, urlTemplate: string, templateLevel: boolean): PlaygroundErrors {
  const errors: PlaygroundErrors = {};
  const add = (field: string, msg: string) => (errors[field] ??= []).push(msg);
  const validTemplate = urlTemplate !== '' && isValidUrlTemplate(urlTemplate);
  if (urlTemplate === '') add('url_template', 'This field cannot be blank.');
  else if (!validTemplate) add('url_template', 'Invalid URL template.');
  if (name === '') add('name', 'This field cannot be blank.');
  if (language === '') add('pygments_language', 'This field cannot be blank.');
  else if (!(templateLevel ? MODEL_LANGUAGE : OLD_MODEL_LANGUAGE).test(language)) add('pygments_language', 'Invalid characters in pygments language');
  if (validTemplate) {
    const variables = new Set(templateVariables(urlTemplate));
    if (!variables.has('code')) add('__all__', 'Missing the required variable "code" in the URL template');
    else if (variables.size !== 1) add('__all__', '"code" should be the only variable present in the URL template');
  }
  return errors;
}

/** A level-122 client's url_prefix as the template it stands for, and back. */
export const prefixToTemplate = (prefix: string): string => `${prefix}{code}`;
export const templateToPrefix = (template: string): string => (template.endsWith('{code}') ? template.slice(0, -'{code}'.length) : template);
