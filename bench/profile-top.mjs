#!/usr/bin/env node
// Prints the functions with the most self time in a V8 .cpuprofile (from `npm run bench -- --profile DIR`).
//   node bench/profile-top.mjs DIR/hostdir-postgres.cpuprofile [count]
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-top.mjs <file.cpuprofile> [count]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
for (let k = 0; k < profile.samples.length; k++) {
  const node = byId.get(profile.samples[k]);
  const dt = profile.timeDeltas[k] ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${path.basename(url)}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = self.get('(idle)') ?? 0;
const busy = total - idle;
console.log(`total ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (shares below are of busy time)`);
for (const [key, us] of [...self.entries()]
  .filter(([key]) => key !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(countArg ?? 25))) {
  console.log(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
}
