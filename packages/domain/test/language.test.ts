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

// RFC 4647 / RFC 9110: `q=0` refuses the range it names and the tags under it, not the language above it. An
// Austrian who refuses `de-AT` but asks for `de` reads German, not English.
t.test('q=0 on a region refuses that region only', async (t) => {
  t.equal(negotiateLanguage('de, de-AT;q=0', supported), 'de');
  t.equal(negotiateLanguage('pt-PT;q=0, pt-BR', supported), 'pt', 'pt is served as Brazilian Portuguese');
  t.equal(negotiateLanguage('pt_PT.UTF-8;q=0, pt_BR.UTF-8', supported), 'pt', 'POSIX forms alike');
  t.equal(negotiateLanguage('de-AT;q=0, *', supported), 'en', '* may still take English');
  t.equal(negotiateLanguage('de;q=0, de-AT', supported), null, 'a refused language refuses its regions');
  t.equal(negotiateLanguage('de_DE;q=0, de, fr;q=0.5', supported), 'de');
  t.equal(negotiateLanguage('en;q=0, de-AT;q=0, *', supported), 'ru', '* skips only what is refused');
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
