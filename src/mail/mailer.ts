// The mail hostdir sends: confirmation links, watch digests, sign-in links. Through the SMTP server SMTP_URL names,
// or, with none (the embedded default), written as .eml files under DATA_DIR/mail/, each complete as a mail system
// would deliver it, for the operator to read or hand on.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * Where one click unsubscribes (RFC 8058): sent as List-Unsubscribe with List-Unsubscribe-Post, so that a mail
   * program offers it and a POST to it ends the subscription; the message's own text should show the link too.
   */
  unsubscribeUrl?: string;
  /**
   * The Message-ID, when the message must keep one across attempts (`<…@host>`): a digest sent again after a failure
   * that may have delivered it after all carries the same id, so that a mail system can drop the second copy.
   * Without it, nodemailer makes a new one.
   */
  messageId?: string;
}

export interface SentMail {
  messageId: string;
  /** the .eml file written, when there is no SMTP server */
  file: string | null;
}

export interface Mailer {
  /** where messages go, for the start log: "smtp://mail.example.org:587" or "files under /var/lib/hostdir/mail" */
  readonly destination: string;
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

export interface MailerOptions {
  /** smtp:// or smtps:// (user and password in the URL); `?from=` sets the sender; null: .eml files */
  smtpUrl: string | null;
  dataDir: string;
  /** the directory's public address, whose host names the default sender */
  publicUrl: string | null;
}

/** The folder the .eml files go to, under DATA_DIR. */
export const MAIL_FOLDER = 'mail';

export function createMailer(options: MailerOptions): Mailer {
  const smtp = options.smtpUrl ? splitSender(options.smtpUrl) : null;
  const from = smtp?.from ?? defaultSender(options.publicUrl);
  if (smtp) {
    const transport = nodemailer.createTransport(smtp.url, { from });
    return {
      destination: smtp.shown,
      async send(message) {
        const info = (await transport.sendMail(mailOptions(message))) as { messageId: string };
        return { messageId: info.messageId, file: null };
      },
      close: () => transport.close(),
    };
  }
  const folder = path.join(options.dataDir, MAIL_FOLDER);
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }, { from });
  return {
    destination: `files under ${folder}`,
    async send(message) {
      const info = (await transport.sendMail(mailOptions(message))) as { messageId: string; message: Buffer };
      await mkdir(folder, { recursive: true, mode: 0o700 });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(6).toString('hex')}.eml`;
      const file = path.join(folder, name);
      // Written whole, then renamed: whoever reads the folder never sees half a message.
      await writeFile(`${file}.part`, info.message, { mode: 0o600 });
      await rename(`${file}.part`, file);
      return { messageId: info.messageId, file };
    },
    close: () => transport.close(),
  };
}

function mailOptions(message: MailMessage): Mail.Options {
  return {
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html ? { html: message.html } : {}),
    ...(message.messageId ? { messageId: message.messageId } : {}),
    ...(message.unsubscribeUrl
      ? {
          list: { unsubscribe: { url: message.unsubscribeUrl, comment: 'Unsubscribe' } },
          headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
        }
      : {}),
  };
}

/** SMTP_URL without its `from` parameter, the sender it names, and the URL as the log may show it (no password). */
function splitSender(smtpUrl: string): { url: string; from: string | null; shown: string } {
  const url = new URL(smtpUrl);
  const from = url.searchParams.get('from');
  url.searchParams.delete('from');
  const shown = `${url.protocol}//${url.hostname}${url.port ? `:${url.port}` : ''}`;
  return { url: url.toString(), from, shown };
}

function defaultSender(publicUrl: string | null): string {
  const host = publicUrl ? new URL(publicUrl).hostname : 'localhost';
  return `hostdir <no-reply@${host}>`;
}
