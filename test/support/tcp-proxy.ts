// A TCP proxy on 127.0.0.1 between a server and PostgreSQL, to cut, stall and heal the database link in tests.
import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { createTestDatabase, startServer, type TestServer } from './server.js';

export interface TcpProxy {
  port: number;
  /** resets every open connection and every new one, as if the database went down */
  cut(): void;
  /** keeps connections open but forwards nothing, as if packets were dropped */
  stall(): void;
  /** forwards again; connections cut before stay cut */
  heal(): void;
  /** what clients sent since the link last stalled, which the database never got */
  withheld(): string;
  /**
   * Cuts the one connection whose next client message contains `text` (other connections go on): `before` drops
   * that message, `after-reply` forwards it and cuts when the server's answer to that command arrives (the first
   * reply naming `text`, as PostgreSQL's command tags do; what the server answered before it, to the statements
   * sent with it, is forwarded), so that the server acts on it but the client never learns how; `stall` drops that
   * message and stalls every connection (as stall()). Resolves once the trap is sprung.
   */
  cutAt(text: string, when: 'before' | 'after-reply' | 'stall'): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'open' | 'cut' | 'stall' = 'open';
  let withheld: Buffer[] = [];
  const stall = () => {
    mode = 'stall';
    withheld = [];
  };
  const pairs = new Set<[Socket, Socket]>();
  let trap: { text: string; when: 'before' | 'after-reply' | 'stall'; sprung: () => void } | null = null;
  const cutPair = (pair: [Socket, Socket]) => {
    pair[0].resetAndDestroy();
    pair[1].resetAndDestroy();
    pairs.delete(pair);
  };

  const server: Server = createServer((client) => {
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    let cutOnReply: { text: string; sprung: () => void } | null = null;
    client.on('data', (chunk: Buffer) => {
      if (mode === 'stall') withheld.push(chunk);
      if (mode !== 'open') return;
      if (trap !== null && chunk.includes(trap.text)) {
        const { text, when, sprung } = trap;
        trap = null;
        if (when === 'before' || when === 'stall') {
          if (when === 'before') cutPair(pair);
          else {
            stall();
            withheld.push(chunk);
          }
          sprung();
          return;
        }
        cutOnReply = { text, sprung };
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (mode !== 'open') return;
      if (cutOnReply !== null && chunk.includes(cutOnReply.text)) {
        const { sprung } = cutOnReply;
        cutOnReply = null;
        cutPair(pair);
        sprung();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const proxy: TcpProxy = {
    port,
    cut() {
      mode = 'cut';
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
    },
    stall,
    heal() {
      mode = 'open';
    },
    withheld: () => Buffer.concat(withheld).toString('latin1'),
    cutAt(text, when) {
      return new Promise<void>((resolve) => {
        trap = { text, when, sprung: resolve };
      });
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

/**
 * A server on a fresh PostgreSQL database reached through a TcpProxy, with a direct client on the same database
 * for the test to look at what it holds whatever the proxy does. `stop` ends all four.
 */
export async function startServerBehindProxy(env: Record<string, string>): Promise<{
  server: TestServer;
  proxy: TcpProxy;
  direct: pg.Client;
  stop(): Promise<void>;
}> {
  const database = await createTestDatabase();
  const target = new URL(database.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(database.url);
  viaProxy.port = String(proxy.port);
  const server = await startServer('postgres', { databaseUrl: viaProxy.toString(), env });
  const direct = new pg.Client({ connectionString: database.url });
  await direct.connect();
  return {
    server,
    proxy,
    direct,
    async stop() {
      await direct.end().catch(() => undefined);
      await server.stop();
      await proxy.close();
      await database.drop();
    },
  };
}
