import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import type { MailConfig } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';

/** One mail to one recipient, in both forms. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The links the mail carries, printed to the log when mails go to files (docs/mail.md). */
  readonly links?: readonly string[];
  /** What the mail is, for the log line (never its content). */
  readonly kind: string;
}

export interface Mailer {
  /** Sends (or, without SMTP, writes) the mail; rejects when it could not. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * The mailer of the configuration: over SMTP (`SMTP_URL`, from `MAIL_FROM`) with nodemailer; without
 * `SMTP_URL`, each mail is written as an `.eml` file to `MAIL_DIR` and its links are logged, so
 * whoever runs the stack locally can follow them.
 */
export function createMailer(
  config: MailConfig,
  logger: Logger,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Mailer {
  if (config.smtpUrl !== undefined) return smtpMailer(config.smtpUrl, config.from);
  return fileMailer(resolve(config.dir), config.from, logger, print);
}

function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    close: () => transport.close(),
  };
}

function fileMailer(dir: string, from: string, logger: Logger, print: (line: string) => void): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const built = await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
      await mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = join(dir, `${stamp}-${message.kind}-${randomBytes(3).toString('hex')}.eml`);
      await writeFile(file, built.message as Buffer);
      logger.info({ mail: message.kind, file }, 'mail written to a file (no SMTP_URL)');
      // The local stack's user follows the link from here. Printed beside the logger on purpose:
      // its scrubber would redact the link's `token=` (mails go to files only without SMTP_URL).
      for (const link of message.links ?? []) print(`[mail] ${message.kind} to ${message.to}: ${link}`);
    },
    close: () => transport.close(),
  };
}
