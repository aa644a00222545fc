import t from 'tap';
import { negotiateLanguage } from '../src/language.ts';

const supported = ['en', 'ru', 'uk', 'de', 'fr', 'es', 'it', 'pt', 'pl', 'tr', 'zh', 'ja'];

t.test('picks by q-value, regions match their language', async (t) => {
  t.equal(negotiateLanguage('uk-UA', supported), 'uk');
  t.equal(negotiateLanguage('de;q=0.5, ru;q=0.9', supported), 'ru');
  t.equal(negotiateLanguage('fr-CA,fr;q=0.9,en;q=0.8', supported), 'fr');
  t.equal(negotiateLanguage('ZH-hans-CN', supported), 'zh');
  t.equal(negotiateLanguage('pl, ja', supported), 'pl', 'ties keep header order');
});

t.test('skips unsupported and excluded languages', async (t) => {
  t.equal(negotiateLanguage('xx, nl;q=0.9, ja;q=0.1', supported), 'ja');
  t.equal(negotiateLanguage('en;q=0, *', supported), 'ru', '* takes the first supported language not excluded');
  t.equal(negotiateLanguage('ru;q=0', supported), null);
});

t.test('nothing usable gives null so the caller falls back', async (t) => {
  t.equal(negotiateLanguage(undefined, supported), null);
  t.equal(negotiateLanguage('', supported), null);
  t.equal(negotiateLanguage('klingon, ;;;, q=1', supported), null);
  t.equal(negotiateLanguage('en;q=abc', supported), null, 'a broken q-value counts as 0');
});

t.test('POSIX locale forms, as Android and shells send them', async (t) => {
  const supported = ['en', 'ru', 'uk', 'pt', 'de'];
  t.equal(negotiateLanguage('ru_RU', supported), 'ru');
  t.equal(negotiateLanguage('pt_BR.UTF-8', supported), 'pt');
  t.equal(negotiateLanguage('uk_UA.utf8@euro', supported), 'uk');
  t.equal(negotiateLanguage('fr_FR, de_DE;q=0.5', supported), 'de');
  t.equal(negotiateLanguage('C.UTF-8', supported), null, 'the C locale names no language');
});
