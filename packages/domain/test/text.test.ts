import t from 'tap';
import { findTextProblem, textProblem } from '../src/text.ts';

t.test('control characters and lone surrogates are refused; tab and line breaks only in free text', async (t) => {
  t.equal(textProblem('Grandma’s borscht — 2 ☕ 🍲', 'text'), null, 'any real text');
  t.equal(textProblem('line one\nline two\r\n\tindented', 'text'), null);
  t.equal(textProblem('a\u0000b', 'text'), 'must not contain control characters', 'NUL');
  t.equal(textProblem('bo\u0007b', 'text'), 'must not contain control characters', 'BEL');
  t.equal(textProblem('x\u007f', 'text'), 'must not contain control characters', 'DEL');
  t.equal(textProblem('x\u0085', 'text'), 'must not contain control characters', 'a C1 control');
  t.equal(textProblem('a\tb', 'line'), 'must not contain control characters', 'a tab in a single-line value');
  t.equal(textProblem('x\ud800y', 'text'), 'must be valid Unicode text', 'a lone high surrogate');
  t.equal(textProblem('\udc00', 'text'), 'must be valid Unicode text', 'a lone low surrogate');
  t.equal(textProblem('\ud83c\udf72', 'text'), null, 'a pair is a character');
});

t.test('the first bad string of a value, as a JSON Pointer', async (t) => {
  t.same(findTextProblem({ date: '2026-11-20', items: [{ name: 'ok' }, { name: 'n\u0000' }] }, '/body', 'text'), {
    path: '/body/items/1/name',
    message: 'must not contain control characters',
  });
  t.same(findTextProblem({ 'a/b\u0000': 1 }, '/body', 'text'), {
    path: '/body/a~1b\u0000',
    message: 'name must not contain control characters',
  });
  t.equal(findTextProblem({ n: 1, b: true, x: null, s: 'fine' }, '/body', 'text'), null);
});
