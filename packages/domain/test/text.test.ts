import t from 'tap';
import {
  findTextProblem,
  MAX_NESTING,
  scriptProblem,
  textProblem,
  withCleanText,
  withoutControlCharacters,
} from '../src/text.ts';

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

t.test('a value nested deeper than MAX_NESTING is a problem, not a stack overflow', async (t) => {
  const nest = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
  t.equal(findTextProblem(nest(MAX_NESTING), '/body', 'text'), null, 'as deep as allowed');
  t.same(findTextProblem(nest(MAX_NESTING + 1), '/body', 'text'), {
    path: `/body${'/0'.repeat(MAX_NESTING)}`,
    message: `must not nest more than ${MAX_NESTING} levels deep`,
  });
  t.equal(findTextProblem(nest(100_000), '/body', 'text')?.message, 'must not nest more than 32 levels deep');
});

t.test('a text in the script of its language, or the reason it is not', async (t) => {
  t.equal(scriptProblem('Из ваших запасов: молоко 3,2%.', 'ru'), null);
  t.equal(
    scriptProblem('Uses Молоко 3,2% from your pantry.', 'en'),
    'is not written in Latin letters',
    'a Russian name in English',
  );
  t.equal(scriptProblem('Uses milk from your pantry.', 'ru'), 'is not written in Cyrillic');
  t.equal(
    scriptProblem('Uses Молоко 3,2% from your pantry.', 'ru'),
    'is not written in Cyrillic',
    'an English sentence',
  );
  t.equal(scriptProblem('Посыпьте тёртым Gruyère и подавайте.', 'ru'), null, 'a cheese name in Latin letters');
  t.equal(scriptProblem('Use 牛奶 from your pantry.', 'zh'), 'is not written in Chinese characters');
  t.equal(scriptProblem('使用您储藏中的牛奶。', 'zh'), null);
  t.equal(scriptProblem('冷蔵庫の牛乳を使います。', 'zh'), 'has Japanese kana');
  t.equal(scriptProblem('冷蔵庫の牛乳を使います。', 'ja'), null);
  t.equal(scriptProblem('Nutzt Milch aus deinem Vorrat.', 'de'), null);
  t.equal(scriptProblem('200 g, 15 min', 'ja'), null, 'numbers and units pass anywhere');
});

t.test('text cleaned rather than refused loses its control characters but tab and line breaks', async (t) => {
  const dirty = 'Crème\u0000 brûlée\u0001\u007f\u0085\u000b\tà la\r\nfrançaise ☕';
  const clean = withoutControlCharacters(dirty);
  t.equal(clean, 'Crème brûlée\tà la\r\nfrançaise ☕');
  t.equal(textProblem(clean, 'text'), null, "what is left passes the service's own text rule");
});

t.test('every string of a model answer is cleaned to pass the text rule; numbers and names stay', async (t) => {
  const answer = {
    recipes: [{ title: 'Buck\u0000wheat', servings: 2, steps: ['Boil\u0007 it.\nServe.', 'x\ud800'], ok: true }],
    none: null,
  };
  const clean = withCleanText(answer);
  t.same(clean, {
    recipes: [{ title: 'Buckwheat', servings: 2, steps: ['Boil it.\nServe.', 'x\ufffd'], ok: true }],
    none: null,
  });
  t.equal(findTextProblem(clean, '', 'text'), null, 'nothing the input rule refuses is left');
});
