#!/usr/bin/env node
// `node dist/main.js` starts the server (server.ts). Node's and V8's memory settings are the deployment's, given when
// node starts (deploy/systemd/hostdir.env).
import { pathToFileURL } from 'node:url';

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { main } = await import('./server.js');
  main().catch((error: unknown) => {
    console.error(`hostdir failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
