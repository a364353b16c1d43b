import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail as the test SMTP server received it, parsed. */
export interface ReceivedMail {
  readonly to: string[];
  readonly from: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly parsed: ParsedMail;
}

/** A real SMTP server on a free port of 127.0.0.1, keeping what it receives (SMTP_URL of the tests). */
export interface SmtpInbox {
  readonly url: string;
  readonly mails: ReceivedMail[];
  /** The mails to this address, waiting up to `timeoutMs` until there are at least `count`. */
  waitFor(to: string, count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: typeof session.envelope.mailFrom === 'object' ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            parsed,
          });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const of = (to: string) => mails.filter((m) => m.to.includes(to.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitFor(to, count = 1, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      while (of(to).length < count) {
        if (Date.now() > until)
          throw new Error(`no mail to ${to} within ${timeoutMs} ms (${of(to).length}/${count})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return of(to);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The one link of a mail's text ending with `#token=…`. */
export function linkIn(mail: ReceivedMail): string {
  const match = /https?:\/\/\S+#token=[A-Za-z0-9_-]+/.exec(mail.text);
  if (match === null) throw new Error(`no link in the mail "${mail.subject}": ${mail.text}`);
  return match[0];
}
