/**
 * Persian and English: the language comes from the browser unless the user chose one (kept in
 * localStorage). Persian is right-to-left with Persian-calendar dates and Persian digits; English is
 * left-to-right with Gregorian dates. Every UI string comes from a catalogue (en.ts, fa.ts).
 */
import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { en, type MessageKey } from './en.ts';
import { fa } from './fa.ts';

export type Locale = 'en' | 'fa';

const STORAGE_KEY = 'gw-console-locale';
const CATALOGUES: Record<Locale, Record<MessageKey, string>> = { en, fa };

/** The saved choice, else the first of the browser's languages we have, else English. */
export function detectLocale(): Locale {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'fa') return saved;
  } catch {
    // Storage may be off (private mode): fall back to the browser's languages.
  }
  const languages = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const language of languages) {
    const base = language?.toLowerCase().split('-')[0];
    if (base === 'fa' || base === 'en') return base;
  }
  return 'en';
}

export type Params = Record<string, string | number>;

export interface I18n {
  readonly locale: Locale;
  readonly dir: 'rtl' | 'ltr';
  readonly t: (key: MessageKey, params?: Params) => string;
  readonly setLocale: (locale: Locale) => void;
  readonly format: Formatters;
}

export interface Formatters {
  /** A count, grouped, in the locale's digits. */
  number(value: number): string;
  /** An amount in Toman, grouped, with the currency name. */
  money(value: number): string;
  /** An amount in Toman without the currency name (tables whose header names it). */
  amount(value: number): string;
  /** An instant (ISO text or epoch seconds/ms) as date and time in the locale's calendar. */
  dateTime(value: string | number | Date): string;
  /** An instant as a date only. */
  date(value: string | number | Date): string;
  /** A billing day `YYYY-MM-DD` as the API gives it (no time-zone shift), in the locale's calendar. */
  day(value: string, style?: 'short' | 'long'): string;
  /** A percentage 0–100. */
  percent(value: number): string;
}

export function makeFormatters(locale: Locale): Formatters {
  const numberLocale = locale === 'fa' ? 'fa-IR' : 'en-US';
  const dateLocale = locale === 'fa' ? 'fa-IR-u-ca-persian' : 'en-US';
  const count = new Intl.NumberFormat(numberLocale, { maximumFractionDigits: 0 });
  const money = new Intl.NumberFormat(numberLocale, { maximumFractionDigits: 2 });
  const smallMoney = new Intl.NumberFormat(numberLocale, { maximumSignificantDigits: 3 });
  const dateTime = new Intl.DateTimeFormat(dateLocale, { dateStyle: 'medium', timeStyle: 'short' });
  const date = new Intl.DateTimeFormat(dateLocale, { dateStyle: 'medium' });
  const dayShort = new Intl.DateTimeFormat(dateLocale, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const dayLong = new Intl.DateTimeFormat(dateLocale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
  const percent = new Intl.NumberFormat(numberLocale, { style: 'percent', maximumFractionDigits: 0 });
  const toman = CATALOGUES[locale]['common.toman'];
  const amount = (value: number) =>
    value !== 0 && Math.abs(value) < 1 ? smallMoney.format(value) : money.format(value);
  return {
    number: (value) => count.format(value),
    amount,
    money: (value) => `${amount(value)} ${toman}`,
    dateTime: (value) => dateTime.format(toDate(value)),
    date: (value) => date.format(toDate(value)),
    day: (value, style = 'long') => {
      const [y, m, d] = value.split('-').map(Number) as [number, number, number];
      const utc = new Date(Date.UTC(y, m - 1, d));
      if (Number.isNaN(utc.getTime())) return value;
      return (style === 'short' ? dayShort : dayLong).format(utc);
    },
    percent: (value) => percent.format(value / 100),
  };
}

function toDate(value: string | number | Date): Date {
  if (value instanceof Date) return value;
  // Epoch seconds (the /v1 convention) or milliseconds.
  if (typeof value === 'number') return new Date(value < 1e12 ? value * 1000 : value);
  return new Date(value);
}

export function translate(locale: Locale, key: MessageKey, params?: Params): string {
  const text = CATALOGUES[locale][key] ?? en[key] ?? key;
  if (params === undefined) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    params[name] === undefined ? whole : String(params[name]),
  );
}

const I18nContext = createContext<I18n | undefined>(undefined);

export function I18nProvider({ children }: { children: ComponentChildren }) {
  const [locale, setLocaleState] = useState<Locale>(detectLocale);
  const value = useMemo<I18n>(() => {
    const dir = locale === 'fa' ? 'rtl' : 'ltr';
    return {
      locale,
      dir,
      t: (key, params) => translate(locale, key, params),
      setLocale: (next) => {
        try {
          localStorage.setItem(STORAGE_KEY, next);
        } catch {
          // Not remembered, but switched for this tab.
        }
        setLocaleState(next);
      },
      format: makeFormatters(locale),
    };
  }, [locale]);
  useEffect(() => {
    const root = document.documentElement;
    root.lang = locale;
    root.dir = value.dir;
    document.title = value.t('app.title');
  }, [locale, value]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (value === undefined) throw new Error('useI18n outside I18nProvider');
  return value;
}

export type { MessageKey };
