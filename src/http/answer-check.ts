/**
 * Every success answer checked against its route's declared `answer`, when
 * PARLEY_CHECK_ANSWERS=1 (the test suite sets it): a declaration that drifts from what the
 * handler sends fails the test that made the request, as a 500 naming the difference.
 * Off in production, where it would only cost time.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import type { Route } from './route.js';

export const checkingAnswers = process.env.PARLEY_CHECK_ANSWERS === '1';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

export function checkAnswer(route: Route, body: unknown): void {
  if (!route.answer) return;
  let check = compiled.get(route.answer);
  if (!check) compiled.set(route.answer, (check = TypeCompiler.Compile(route.answer)));
  if (check.Check(body)) return;
  const errors = [...check.Errors(body)].slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`);
  throw new Error(`${route.method} ${route.path}: the answer does not match its declaration: ${errors.join('; ')}`);
}
