// Vitest's global setup: one embedded store (PGlite) initialised and migrated once per run, which every test that
// needs a fresh embedded store copies. Initialising PGlite (its initdb, in WebAssembly) takes seconds, many more on
// a busy machine; a copy takes a fraction of one. A copy is what any store is after its first start.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { EmbeddedDatabase } from '../../src/store/embedded.js';
import { migrate } from '../../src/store/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** an initialised, migrated PGlite data directory, to be copied (never opened in place) */
    embeddedTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await mkdtemp(path.join(tmpdir(), 'hostdir-template-'));
  const template = path.join(root, 'pglite');
  const db = await EmbeddedDatabase.open(template);
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
  project.provide('embeddedTemplate', template);
  return () => rm(root, { recursive: true, force: true });
}
