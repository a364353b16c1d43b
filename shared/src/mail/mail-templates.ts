import type { MailMessage } from './mailer.ts';

/** The languages mails are written in: the holder's (the console's Persian and English). */
export type MailLanguage = 'fa' | 'en';

/** The language of a request's `Accept-Language`: English when preferred over Persian, else Persian. */
export function mailLanguageOf(acceptLanguage: string | undefined): MailLanguage {
  const first = (acceptLanguage ?? '').split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('en') ? 'en' : 'fa';
}

type Kind = 'sign-up-verify' | 'sign-up-taken' | 'password-reset';

interface Words {
  readonly subject: string;
  readonly greeting: string;
  readonly body: string;
  readonly action?: string;
  readonly footer: string;
}

const WORDS: Readonly<Record<Kind, Readonly<Record<MailLanguage, Words>>>> = {
  'sign-up-verify': {
    en: {
      subject: 'Confirm your email address',
      greeting: 'Hello,',
      body: 'Someone (we hope you) signed up for the model gateway with this address. Open the link below within 24 hours to confirm it and sign in. It works once.',
      action: 'Confirm my address',
      footer: 'If you did not sign up, ignore this mail: no account is made without the link.',
    },
    fa: {
      subject: 'نشانی ایمیل خود را تأیید کنید',
      greeting: 'سلام،',
      body: 'کسی (امیدواریم خود شما) با این نشانی در درگاه مدل‌ها ثبت‌نام کرده است. برای تأیید و ورود، پیوند زیر را تا ۲۴ ساعت باز کنید. این پیوند فقط یک بار کار می‌کند.',
      action: 'تأیید نشانی من',
      footer: 'اگر شما ثبت‌نام نکرده‌اید، این ایمیل را نادیده بگیرید: بدون این پیوند حسابی ساخته نمی‌شود.',
    },
  },
  'sign-up-taken': {
    en: {
      subject: 'Someone tried to sign up with your address',
      greeting: 'Hello,',
      body: 'Someone tried to sign up for the model gateway with this address, which already has an account. Nothing changed. If it was you, sign in, or use “Forgot password” on the sign-in page.',
      footer: 'If it was not you, you need do nothing.',
    },
    fa: {
      subject: 'کسی خواست با نشانی شما ثبت‌نام کند',
      greeting: 'سلام،',
      body: 'کسی خواست با این نشانی در درگاه مدل‌ها ثبت‌نام کند، ولی این نشانی از پیش حساب دارد. چیزی تغییر نکرد. اگر خودتان بودید، وارد شوید یا در صفحهٔ ورود «رمز را فراموش کرده‌ام» را بزنید.',
      footer: 'اگر شما نبودید، لازم نیست کاری کنید.',
    },
  },
  'password-reset': {
    en: {
      subject: 'Set a new password',
      greeting: 'Hello,',
      body: 'A new password was asked for your model gateway account. Open the link below within an hour to set one. It works once; your other sessions end when you use it.',
      action: 'Set a new password',
      footer: 'If you did not ask, ignore this mail: your password stays as it is.',
    },
    fa: {
      subject: 'رمز تازه بگذارید',
      greeting: 'سلام،',
      body: 'برای حساب شما در درگاه مدل‌ها رمز تازه خواسته شد. برای گذاشتن رمز، پیوند زیر را تا یک ساعت باز کنید. این پیوند فقط یک بار کار می‌کند و با آن نشست‌های دیگرتان بسته می‌شود.',
      action: 'گذاشتن رمز تازه',
      footer: 'اگر شما نخواسته‌اید، این ایمیل را نادیده بگیرید: رمزتان تغییر نمی‌کند.',
    },
  },
};

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A mail of this kind to `to`, in `language`, as plain text and HTML; `link` is its one action. */
export function composeMail(kind: Kind, language: MailLanguage, to: string, link?: string): MailMessage {
  const w = WORDS[kind][language];
  const dir = language === 'fa' ? 'rtl' : 'ltr';
  const text = [w.greeting, '', w.body, ...(link === undefined ? [] : ['', link]), '', w.footer, ''].join(
    '\n',
  );
  const button =
    link === undefined || w.action === undefined
      ? ''
      : `<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;background:#2457d6;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(w.action)}</a></p>
<p style="font-size:13px;color:#555;direction:ltr;text-align:${dir === 'rtl' ? 'right' : 'left'};word-break:break-all">${escapeHtml(link)}</p>`;
  const html = `<!doctype html>
<html lang="${language}" dir="${dir}"><head><meta charset="utf-8"><title>${escapeHtml(w.subject)}</title></head>
<body style="font-family:Vazirmatn,Tahoma,Arial,sans-serif;line-height:1.7;color:#1b1b1b;max-width:560px;margin:auto;padding:16px">
<p>${escapeHtml(w.greeting)}</p>
<p>${escapeHtml(w.body)}</p>
${button}
<p style="color:#555">${escapeHtml(w.footer)}</p>
</body></html>`;
  return { to, subject: w.subject, text, html, kind, links: link === undefined ? [] : [link] };
}
