// The site's icon, drawn once from one list of rectangles: as SVG (linked from every page) and as a 32×32 PNG in an
// ICO file (/favicon.ico, which browsers and feed readers ask for on their own).
import { deflateSync } from 'node:zlib';

const SIZE = 32;
const BACKGROUND = [0x12, 0x26, 0x3f] as const; // the header's navy
const INK = [0xff, 0xff, 0xff] as const;

/** A lower-case "h": stem, shoulder, leg, on a square with rounded corners (x, y, width, height). */
const GLYPH: readonly (readonly [number, number, number, number])[] = [
  [9, 6, 4, 20],
  [13, 13, 8, 4],
  [19, 15, 4, 11],
];
const CORNER = 6;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}"><rect width="${SIZE}" height="${SIZE}" rx="${CORNER}" fill="#12263f"/>${GLYPH.map(([x, y, w, h]) => `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#fff"/>`).join('')}</svg>\n`;

function insideRoundedSquare(x: number, y: number): boolean {
  const cx = Math.min(Math.max(x + 0.5, CORNER), SIZE - CORNER);
  const cy = Math.min(Math.max(y + 0.5, CORNER), SIZE - CORNER);
  return (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= CORNER ** 2;
}

function pixel(x: number, y: number): [number, number, number, number] {
  if (!insideRoundedSquare(x, y)) return [0, 0, 0, 0];
  const ink = GLYPH.some(([gx, gy, w, h]) => x >= gx && x < gx + w && y >= gy && y < gy + h);
  return [...(ink ? INK : BACKGROUND), 255];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, no interlace
  const rows: number[] = [];
  for (let y = 0; y < SIZE; y++) {
    rows.push(0); // no filter
    for (let x = 0; x < SIZE; x++) rows.push(...pixel(x, y));
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An ICO file holding one 32×32 PNG image (allowed since Windows Vista, read by every browser). */
function ico(image: Buffer): Buffer {
  const head = Buffer.alloc(6 + 16);
  head.writeUInt16LE(0, 0); // reserved
  head.writeUInt16LE(1, 2); // an icon
  head.writeUInt16LE(1, 4); // one image
  head.writeUInt8(SIZE, 6);
  head.writeUInt8(SIZE, 7);
  head.writeUInt8(0, 8); // no palette
  head.writeUInt16LE(1, 10); // colour planes
  head.writeUInt16LE(32, 12); // bits per pixel
  head.writeUInt32LE(image.length, 14);
  head.writeUInt32LE(head.length, 18);
  return Buffer.concat([head, image]);
}

export const FAVICON_PNG = png();
export const FAVICON_ICO = ico(FAVICON_PNG);
