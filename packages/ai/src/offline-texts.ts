/**
 * The offline model's own sentences, composed in the request language (a recommendation's reason, the step of a recipe
 * that has none), so a reader never meets an English sentence around names in their language.
 */
interface OfflineTexts {
  usesPantry: (items: string) => string;
  fitsTargets: string;
  prepareAsUsual: string;
  /** How a list of pantry items is joined. */
  separator: string;
}

const TEXTS: Record<string, OfflineTexts> = {
  en: {
    usesPantry: (x) => `Uses ${x} from your pantry.`,
    fitsTargets: 'Fits your targets and preferences.',
    prepareAsUsual: 'Prepare as usual.',
    separator: ', ',
  },
  ru: {
    usesPantry: (x) => `Из ваших запасов: ${x}.`,
    fitsTargets: 'Подходит под ваши цели и вкусы.',
    prepareAsUsual: 'Приготовьте как обычно.',
    separator: ', ',
  },
  uk: {
    usesPantry: (x) => `З ваших запасів: ${x}.`,
    fitsTargets: 'Відповідає вашим цілям і смакам.',
    prepareAsUsual: 'Приготуйте як завжди.',
    separator: ', ',
  },
  de: {
    usesPantry: (x) => `Verwendet ${x} aus Ihrem Vorrat.`,
    fitsTargets: 'Passt zu Ihren Zielen und Vorlieben.',
    prepareAsUsual: 'Wie gewohnt zubereiten.',
    separator: ', ',
  },
  fr: {
    usesPantry: (x) => `Utilise ${x} de votre garde-manger.`,
    fitsTargets: 'Correspond à vos objectifs et à vos goûts.',
    prepareAsUsual: 'Préparer comme d’habitude.',
    separator: ', ',
  },
  es: {
    usesPantry: (x) => `Usa ${x} de tu despensa.`,
    fitsTargets: 'Se ajusta a tus objetivos y gustos.',
    prepareAsUsual: 'Prepáralo como de costumbre.',
    separator: ', ',
  },
  it: {
    usesPantry: (x) => `Usa ${x} dalla tua dispensa.`,
    fitsTargets: 'Adatto ai tuoi obiettivi e gusti.',
    prepareAsUsual: 'Preparare come al solito.',
    separator: ', ',
  },
  pt: {
    usesPantry: (x) => `Usa ${x} da sua despensa.`,
    fitsTargets: 'Combina com suas metas e preferências.',
    prepareAsUsual: 'Prepare como de costume.',
    separator: ', ',
  },
  pl: {
    usesPantry: (x) => `Wykorzystuje z Twoich zapasów: ${x}.`,
    fitsTargets: 'Pasuje do Twoich celów i upodobań.',
    prepareAsUsual: 'Przygotuj jak zwykle.',
    separator: ', ',
  },
  tr: {
    usesPantry: (x) => `Kilerinizdeki ${x} kullanılır.`,
    fitsTargets: 'Hedeflerinize ve zevkinize uygun.',
    prepareAsUsual: 'Her zamanki gibi hazırlayın.',
    separator: ', ',
  },
  zh: {
    usesPantry: (x) => `用到您储藏中的${x}。`,
    fitsTargets: '符合您的目标和口味。',
    prepareAsUsual: '按常规方法烹制。',
    separator: '、',
  },
  ja: {
    usesPantry: (x) => `ストックの${x}を使います。`,
    fitsTargets: '目標と好みに合っています。',
    prepareAsUsual: 'いつもどおりに調理してください。',
    separator: '、',
  },
};

/** The sentences in `language`, English for a language without its own. */
export function offlineTexts(language: string): OfflineTexts {
  return TEXTS[language] ?? TEXTS.en!;
}

/** Every language the offline model writes in. */
export const OFFLINE_LANGUAGES = Object.keys(TEXTS);
