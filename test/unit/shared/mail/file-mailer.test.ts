import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { composeMail, mailLanguageOf } from '../../../../shared/src/mail/mail-templates.ts';
import { createMailer } from '../../../../shared/src/mail/mailer.ts';
import { captureLogger } from '../../../helpers/capture-logger.ts';

describe('the mailer without SMTP_URL', () => {
  it('writes each mail as an .eml file to MAIL_DIR and prints its link', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'gw-mail-')), 'mail');
    const printed: string[] = [];
    const { logger } = captureLogger();
    const mailer = createMailer({ smtpUrl: undefined, from: 'GW <gw@example.test>', dir }, logger, (line) =>
      printed.push(line),
    );
    const link = 'http://127.0.0.1:8080/console/verify#token=abc_DEF-123';
    await mailer.send(composeMail('sign-up-verify', 'fa', 'new@example.test', link));
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/sign-up-verify.*\.eml$/);
    const parsed = await simpleParser(await readFile(join(dir, files[0] as string)));
    expect(parsed.subject).toBe('نشانی ایمیل خود را تأیید کنید');
    expect(parsed.text).toContain(link);
    expect(String(parsed.html)).toContain('dir="rtl"');
    expect(printed).toEqual([`[mail] sign-up-verify to new@example.test: ${link}`]);
    mailer.close();
  });
});

describe('mailLanguageOf', () => {
  it('is English when preferred, Persian otherwise', () => {
    expect(mailLanguageOf('en-US,en;q=0.9')).toBe('en');
    expect(mailLanguageOf('fa-IR')).toBe('fa');
    expect(mailLanguageOf(undefined)).toBe('fa');
    expect(mailLanguageOf('de')).toBe('fa');
  });
});
