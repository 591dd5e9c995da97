// PostgreSQL's tools (initdb, pg_ctl) and PgBouncer refuse to run as root: tests started as root run them as the
// system's postgres user.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

/** The postgres user when this process is root (null otherwise: the tools then run as this process's user). */
export async function postgresUser(): Promise<SystemUser | null> {
  if (process.getuid?.() !== 0) return null;
  const run = promisify(execFile);
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { name: 'postgres', uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
