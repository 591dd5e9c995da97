// Vitest's global setup: one embedded store (PGlite) initialised and migrated, which every test that needs a fresh
// embedded store copies. Initialising PGlite (its initdb, in WebAssembly) and migrating takes seconds, tens of them on
// a busy machine; a copy takes a fraction of one. A copy is what any store is after its first start.
//
// The store made is kept under node_modules/.cache/hostdir, named by a digest of what makes it (the migrations, the
// code that opens and migrates the store, PGlite's version): the next run copies it without making it again, and a
// change to any of those makes a new one. A fresh checkout makes it on its first run.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { EmbeddedDatabase } from '../../src/store/embedded.js';
import { migrate } from '../../src/store/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** an initialised, migrated PGlite data directory, to be copied (never opened in place) */
    embeddedTemplate: string;
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = path.join(ROOT, 'node_modules/.cache/hostdir/embedded-template');
const MIGRATIONS = path.join(ROOT, 'src/store/migrations');

/** A digest of everything the template is made of: another PGlite, migration or way of opening makes another one. */
async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  const parts = [
    'node_modules/@electric-sql/pglite/package.json',
    'src/store/embedded.ts',
    'src/store/migrate.ts',
    ...(await readdir(MIGRATIONS)).sort().map((name) => path.join('src/store/migrations', name)),
  ];
  for (const part of parts)
    hash
      .update(`${part}\0`)
      .update(await readFile(path.join(ROOT, part)))
      .update('\0');
  return hash.digest('hex').slice(0, 24);
}

/** Makes an initialised, migrated store at `dataDir`. */
async function makeTemplate(dataDir: string): Promise<void> {
  const db = await EmbeddedDatabase.open(dataDir);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * The cached template for this key, made first when there is none. It is made beside its final place and renamed
 * into it whole, so that a run never copies a half-made one, and runs that make it at once all end with one.
 */
async function cachedTemplate(): Promise<string> {
  const kept = path.join(CACHE, await templateKey());
  const template = path.join(kept, 'pglite');
  if (await exists(template)) return template;
  await mkdir(CACHE, { recursive: true });
  const making = path.join(CACHE, `.making-${randomBytes(6).toString('hex')}`);
  try {
    await makeTemplate(path.join(making, 'pglite'));
    await rename(making, kept).catch(async (error: NodeJS.ErrnoException) => {
      // Another run put its own there first: that one is used.
      if (!(await exists(template))) throw error;
    });
  } finally {
    await rm(making, { recursive: true, force: true });
  }
  return template;
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  try {
    project.provide('embeddedTemplate', await cachedTemplate());
    return undefined;
  } catch (error) {
    // No cache to write to (a read-only node_modules): a template of this run's own, removed after it.
    console.warn(`the embedded store's template is not cached (${(error as Error).message}); making one for this run`);
    const root = await mkdtemp(path.join(tmpdir(), 'hostdir-template-'));
    const template = path.join(root, 'pglite');
    await makeTemplate(template);
    project.provide('embeddedTemplate', template);
    return () => rm(root, { recursive: true, force: true });
  }
}
