// A DNS server a test controls, on 127.0.0.1 over UDP: answers A and TXT questions from its own table, NXDOMAIN for
// names it does not hold, and no record (NODATA) for a type a name lacks. Enough for node:dns's Resolver.
import { createSocket, type Socket } from 'node:dgram';

export interface DnsRecords {
  a?: string[];
  txt?: string[];
}

const TYPE_A = 1;
const TYPE_TXT = 16;

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  while (message[at]! !== 0) {
    const length = message[at]!;
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), end: at + 1 };
}

function record(type: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // the question's name
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4); // IN
  head.writeUInt32BE(1, 6); // TTL
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

function txtData(text: string): Buffer {
  const chunks: Buffer[] = [];
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length || at === 0; at += 255) {
    const piece = bytes.subarray(at, at + 255);
    chunks.push(Buffer.from([piece.length]), piece);
    if (bytes.length === 0) break;
  }
  return Buffer.concat(chunks);
}

export class TestDnsServer {
  readonly records = new Map<string, DnsRecords>();
  #socket: Socket | null = null;
  port = 0;

  set(name: string, records: DnsRecords): void {
    this.records.set(name.toLowerCase(), records);
  }

  /** "127.0.0.1:<port>", as Resolver.setServers takes it */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const socket = createSocket('udp4');
    this.#socket = socket;
    socket.on('message', (message, peer) => {
      const reply = this.#answer(message);
      if (reply) socket.send(reply, peer.port, peer.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.port = socket.address().port;
  }

  #answer(message: Buffer): Buffer | null {
    if (message.length < 12) return null;
    const { name, end } = readName(message, 12);
    const type = message.readUInt16BE(end);
    const question = message.subarray(12, end + 4);
    const known = this.records.get(name);
    const answers =
      known === undefined
        ? []
        : type === TYPE_A
          ? (known.a ?? []).map((ip) => record(TYPE_A, Buffer.from(ip.split('.').map(Number))))
          : type === TYPE_TXT
            ? (known.txt ?? []).map((text) => record(TYPE_TXT, txtData(text)))
            : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180 | (known === undefined ? 3 : 0), 2); // response, recursion; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    return Buffer.concat([header, question, ...answers]);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.#socket ? this.#socket.close(() => resolve()) : resolve()));
  }
}
