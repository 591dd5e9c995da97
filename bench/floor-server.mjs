// The floors' server, started by bench/run.mjs in its own process like hostdir's: it does the least any sync
// server must do with a request. Never part of hostdir itself.
//   POST /discard   reads the body and answers 200 without looking at it            (floor_http_ms)
//   POST /parse-tx  reads the body, JSON.parse, one empty transaction, answers 200  (floor_throughput_per_s)
// argv: <store: postgres|embedded> [database url]
import { createServer } from 'node:http';

const [store, databaseUrl] = process.argv.slice(2);

async function openTransactions() {
  if (store === 'postgres') {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    return async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create();
  // One connection, like the embedded store: transactions queue behind one another.
  let tail = Promise.resolve();
  return () => {
    const run = tail.then(async () => {
      await db.exec('BEGIN');
      await db.exec('COMMIT');
    });
    tail = run.catch(() => {});
    return run;
  };
}

const emptyTransaction = await openTransactions();

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const server = createServer((request, response) => {
  if (request.url === '/discard') {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    return;
  }
  readBody(request)
    .then(async (buffer) => {
      JSON.parse(buffer.toString('utf8'));
      await emptyTransaction();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    })
    .catch((error) => response.writeHead(500).end(String(error)));
});
// As long as hostdir's in the benchmark (bench/run.mjs): a connection is never closed between two rounds.
server.keepAliveTimeout = 600_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
