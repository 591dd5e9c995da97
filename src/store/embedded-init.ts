// A new embedded store is made (PGlite's initdb) and migrated by a node process of its own, which then exits: the
// server then opens a store as every later start finds it. Made in the server's own process, a store's making held
// about 650 MB there for a moment (PGlite runs initdb in WebAssembly beside two instances of PostgreSQL), and left
// about 35 MB more with the server for as long as it ran than a restarted server holds, enough for a 50 000-product
// sync in the first process to pass its memory target (docs/operations.md, "Sizing").
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { EmbeddedDatabase } from './embedded.js';
import { migrate } from './migrate.js';

const SCRIPT = fileURLToPath(import.meta.url);

/** Whether `dir` holds a store PostgreSQL has made (initdb writes PG_VERSION first of all). */
export function embeddedStoreExists(dir: string): boolean {
  return existsSync(path.join(dir, 'PG_VERSION'));
}

/** Makes and migrates the store in `dir`, in this process. */
async function makeStore(dir: string): Promise<void> {
  const db = await EmbeddedDatabase.open(dir);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
}

/**
 * Makes the store in `dir` unless there is one, in a node process of its own; in this one when this module runs from
 * its TypeScript source (in-process tests), which node cannot start as a script.
 */
export async function makeEmbeddedStore(dir: string): Promise<void> {
  if (embeddedStoreExists(dir)) return;
  if (!SCRIPT.endsWith('.js')) return makeStore(dir);
  try {
    await promisify(execFile)(process.execPath, [SCRIPT, dir], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const said = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`making the embedded store in ${dir} failed${said ? `: ${said}` : ''}`, { cause: error });
  }
}

/** Whether node was started with this module as its script (a path given through a link names it too). */
function startedAsScript(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === SCRIPT;
  } catch {
    return false;
  }
}

if (startedAsScript()) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node embedded-init.js DIR');
    process.exit(2);
  }
  await makeStore(dir);
}
