/**
 * Whisper's verbose_json answer names the language in words (`"language": "english"`; Groq
 * capitalises it, `"English"`), while the gateway's TranscriptionResponse carries a language code.
 * The table is Whisper's own (openai/whisper `tokenizer.py`: `LANGUAGES` and the aliases of
 * `TO_LANGUAGE_CODE`), keyed by lower-case name.
 */
// biome-ignore format: a packed lookup table reads better than one pair per line.
const WHISPER_LANGUAGES: Readonly<Record<string, string>> = Object.freeze({
  english: 'en', chinese: 'zh', german: 'de', spanish: 'es', russian: 'ru', korean: 'ko',
  french: 'fr', japanese: 'ja', portuguese: 'pt', turkish: 'tr', polish: 'pl', catalan: 'ca',
  dutch: 'nl', arabic: 'ar', swedish: 'sv', italian: 'it', indonesian: 'id', hindi: 'hi',
  finnish: 'fi', vietnamese: 'vi', hebrew: 'he', ukrainian: 'uk', greek: 'el', malay: 'ms',
  czech: 'cs', romanian: 'ro', danish: 'da', hungarian: 'hu', tamil: 'ta', norwegian: 'no',
  thai: 'th', urdu: 'ur', croatian: 'hr', bulgarian: 'bg', lithuanian: 'lt', latin: 'la',
  maori: 'mi', malayalam: 'ml', welsh: 'cy', slovak: 'sk', telugu: 'te', persian: 'fa',
  latvian: 'lv', bengali: 'bn', serbian: 'sr', azerbaijani: 'az', slovenian: 'sl', kannada: 'kn',
  estonian: 'et', macedonian: 'mk', breton: 'br', basque: 'eu', icelandic: 'is', armenian: 'hy',
  nepali: 'ne', mongolian: 'mn', bosnian: 'bs', kazakh: 'kk', albanian: 'sq', swahili: 'sw',
  galician: 'gl', marathi: 'mr', punjabi: 'pa', sinhala: 'si', khmer: 'km', shona: 'sn',
  yoruba: 'yo', somali: 'so', afrikaans: 'af', occitan: 'oc', georgian: 'ka', belarusian: 'be',
  tajik: 'tg', sindhi: 'sd', gujarati: 'gu', amharic: 'am', yiddish: 'yi', lao: 'lo', uzbek: 'uz',
  faroese: 'fo', 'haitian creole': 'ht', pashto: 'ps', turkmen: 'tk', nynorsk: 'nn', maltese: 'mt',
  sanskrit: 'sa', luxembourgish: 'lb', myanmar: 'my', tibetan: 'bo', tagalog: 'tl', malagasy: 'mg',
  assamese: 'as', tatar: 'tt', hawaiian: 'haw', lingala: 'ln', hausa: 'ha', bashkir: 'ba',
  javanese: 'jw', sundanese: 'su', cantonese: 'yue',
  // Whisper's aliases.
  burmese: 'my', valencian: 'ca', flemish: 'nl', haitian: 'ht', letzeburgesch: 'lb', pushto: 'ps',
  panjabi: 'pa', moldavian: 'ro', moldovan: 'ro', sinhalese: 'si', castilian: 'es', mandarin: 'zh',
});

/**
 * The language code for what Whisper reported: a known name becomes its code, a value that is
 * already a code (two or three letters, as some compatible servers send) is kept, and anything
 * else is passed on as reported rather than dropped.
 */
export function whisperLanguageCode(reported: string): string | null {
  const name = reported.trim().toLowerCase();
  if (name === '') return null;
  return WHISPER_LANGUAGES[name] ?? (/^[a-z]{2,3}$/.test(name) ? name : reported.trim());
}
