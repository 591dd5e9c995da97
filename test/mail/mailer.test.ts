// The mail path: through an SMTP server (one this test starts), or, with no SMTP_URL, as .eml files under
// DATA_DIR/mail — both carrying the one-click unsubscribe headers of RFC 8058 when a message has them.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/mail/mailer.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

describe('mail', () => {
  let dataDir: string;
  let smtp: SMTPServer;
  let port: number;
  const received: Received[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-mail-'));
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let data = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (data += chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((to) => to.address),
            data,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sends through SMTP_URL, from the sender it names, with one-click unsubscribe headers', async () => {
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${port}/?from=alerts@directory.example.org`,
      dataDir,
      publicUrl: null,
    });
    expect(mailer.destination).toBe(`smtp://127.0.0.1:${port}`);
    const sent = await mailer.send({
      to: 'visitor@example.net',
      subject: 'A plan you watch is cheaper',
      text: 'Plan X now costs €4.00 a month.\nUnsubscribe: https://directory.example.org/u/abc',
      unsubscribeUrl: 'https://directory.example.org/u/abc',
    });
    mailer.close();
    expect(sent.file).toBeNull();
    expect(received).toHaveLength(1);
    const [message] = received;
    expect(message!.from).toBe('alerts@directory.example.org');
    expect(message!.to).toEqual(['visitor@example.net']);
    expect(message!.data).toMatch(/^Subject: A plan you watch is cheaper$/m);
    expect(message!.data).toMatch(/^List-Unsubscribe: <https:\/\/directory\.example\.org\/u\/abc>/m);
    expect(message!.data).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(message!.data).toContain('Plan X now costs');
  });

  it('writes each message whole as an .eml file under DATA_DIR/mail when there is no SMTP server', async () => {
    const mailer = createMailer({ smtpUrl: null, dataDir, publicUrl: 'https://directory.example.org' });
    expect(mailer.destination).toBe(`files under ${path.join(dataDir, 'mail')}`);
    const sent = await mailer.send({ to: 'visitor@example.net', subject: 'Confirm your watch', text: 'Open the link' });
    mailer.close();
    expect(sent.file).not.toBeNull();
    expect(await readdir(path.join(dataDir, 'mail'))).toEqual([path.basename(sent.file!)]);
    expect(path.extname(sent.file!)).toBe('.eml');
    expect((await stat(sent.file!)).mode & 0o077).toBe(0);
    const eml = await readFile(sent.file!, 'utf8');
    expect(eml).toMatch(/^From: hostdir <no-reply@directory\.example\.org>$/m);
    expect(eml).toMatch(/^To: visitor@example\.net$/m);
    expect(eml).toMatch(/^Subject: Confirm your watch$/m);
    expect(eml).not.toMatch(/^List-Unsubscribe/m);
    expect(eml).toContain('Open the link');
  });
});
