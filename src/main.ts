#!/usr/bin/env node
// `node dist/main.js` starts the server (server.ts). The V8 flags the server sets itself (heap-flags.ts) are set
// first, and the server's modules are loaded only then: parsing them fills V8's young generation, which would
// otherwise have grown before the flags applied.
import './heap-flags.js';
import { pathToFileURL } from 'node:url';

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { main } = await import('./server.js');
  main().catch((error: unknown) => {
    console.error(`hostdir failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
