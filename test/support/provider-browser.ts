// A provider's browser without a browser: keeps its cookies, sends each form with the CSRF token of the page it came
// from, and reads the mail hostdir wrote as .eml files under DATA_DIR/mail.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class FormClient {
  cookies = new Map<string, string>();
  /** the CSRF token of the last page that had a form */
  csrf: string | null = null;

  constructor(readonly baseUrl: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(
    method: string,
    pathname: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Page> {
    const response = await fetch(`${this.baseUrl}${pathname}`, {
      method,
      redirect: 'manual',
      headers: {
        accept: 'text/html',
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: response.status, headers: response.headers, text, location: response.headers.get('location') };
  }

  get(pathname: string): Promise<Page> {
    return this.request('GET', pathname);
  }

  /** Sends a form with the CSRF token of the last page (unless the form names its own). */
  post(pathname: string, form: Record<string, string> = {}): Promise<Page> {
    return this.request('POST', pathname, { ...(this.csrf ? { _csrf: this.csrf } : {}), ...form });
  }
}

/** Every message written under dataDir/mail, oldest first, as text. */
export async function mails(dataDir: string): Promise<string[]> {
  const folder = path.join(dataDir, 'mail');
  const names = (await readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith('.eml')).sort();
  return Promise.all(names.map((name) => readFile(path.join(folder, name), 'utf8')));
}

/** The link of the latest mail to `to` (quoted-printable soft breaks joined). */
export async function latestLink(dataDir: string, to: string): Promise<string> {
  const all = (await mails(dataDir)).filter((mail) => new RegExp(`^To: ${to}$`, 'mi').test(mail));
  const last = all.at(-1);
  if (!last) throw new Error(`no mail to ${to}`);
  const text = last.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const link = /https?:\/\/\S+\/providers\/link\?token=lnk_[0-9a-f]{64}/.exec(text)?.[0];
  if (!link) throw new Error(`no link in the mail to ${to}:\n${last}`);
  return link;
}
