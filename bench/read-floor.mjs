// The read benchmark's floor: the same server framework as hostdir (Fastify) answering, for each path, a body
// precomputed from hostdir's own answer to it (same bytes, same Content-Type), with as many processes as hostdir
// is given (node:cluster, sharing the port). Never part of hostdir itself.
//   argv: <answers.json: {"/path": {"type": "...", "body": "<base64>"}}> <processes> <port>
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [file, processes = '1', port = '0'] = process.argv.slice(2);

if (cluster.isPrimary && Number(processes) > 1) {
  let listening = 0;
  for (let k = 0; k < Number(processes); k++) {
    cluster.fork().on('listening', () => {
      if (++listening === Number(processes)) process.stdout.write(`${JSON.stringify({ port: Number(port) })}\n`);
    });
  }
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const answers = JSON.parse(readFileSync(file, 'utf8'));
  const app = Fastify({ logger: false });
  // One route per path; the answer is picked by the whole URL, as paths differing only in their query (the JSON
  // search's sorts) share a route.
  const byUrl = new Map();
  for (const [url, { type, body }] of Object.entries(answers))
    byUrl.set(url, { type, bytes: Buffer.from(body, 'base64') });
  for (const route of new Set([...byUrl.keys()].map((url) => url.split('?')[0]))) {
    app.get(route, (request, reply) => {
      const answer = byUrl.get(request.url);
      if (!answer) return reply.code(404).send();
      return reply.type(answer.type).send(answer.bytes);
    });
  }
  const address = await app.listen({ host: '127.0.0.1', port: Number(port) });
  if (cluster.isPrimary) process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
}
