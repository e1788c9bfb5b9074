/**
 * The connection's character sets (SPEC section 9, Bytes): which MySQL character sets the
 * listener converts, how their bytes read as text (statements, names) and how text is written
 * in them (results, column definitions). utf8mb4 is the engine's own and needs neither; a
 * single-byte set (latin1 is MySQL's cp1252) is converted both ways, a character it cannot
 * hold written as '?', as MySQL does. The multi-byte Asian sets are not converted.
 */

/** A character set: MySQL's name, its default collation id, and its bytes read and written. */
export interface Charset {
  name: string;
  /** The collation id a text column of a result carries in this set (utf8mb4_general_ci: 45). */
  collation: number;
  decoder: { decode(bytes: Uint8Array): string };
  /** Text as bytes in this set; a character outside it becomes '?'. */
  encode(text: string): Buffer;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** MySQL's single-byte character sets: their WHATWG encodings (MySQL's latin1 is Windows-1252) and default collations. */
const SINGLE_BYTE: Record<string, [label: string, collation: number]> = {
  latin1: ['windows-1252', 8],
  latin2: ['iso-8859-2', 9],
  latin5: ['windows-1254', 30],
  latin7: ['iso-8859-13', 41],
  cp1250: ['windows-1250', 26],
  cp1251: ['windows-1251', 51],
  cp1256: ['windows-1256', 57],
  cp1257: ['windows-1257', 59],
  cp866: ['ibm866', 36],
  koi8r: ['koi8-r', 7],
  koi8u: ['koi8-u', 22],
  greek: ['iso-8859-7', 25],
  hebrew: ['iso-8859-8', 16],
  macroman: ['macintosh', 39],
};

/** The collations of a handshake that name a single-byte set (each set's default, and latin1's others). */
const COLLATION_SET = new Map<number, string>([
  ...Object.entries(SINGLE_BYTE).map(([name, [, id]]): [number, string] => [id, name]),
  ...[5, 15, 31, 47, 48, 49, 94].map((id): [number, string] => [id, 'latin1']),
]);

/** Windows-1252's 0x80-0x9F (Node's TextDecoder reads `windows-1252` as ISO-8859-1); MySQL keeps the 5 unused ones. */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];

const cp1252 = {
  decode(bytes: Uint8Array): string {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    return text.replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80]));
  },
};

const QUESTION = 0x3f;
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The encoder of a single-byte set, from its decoder: each UTF-16 code unit's byte (0: none,
 * but for NUL). A character outside the BMP (a surrogate pair) is one '?', as in MySQL.
 */
function singleByteEncoder(decoder: Charset['decoder']): (text: string) => Buffer {
  let table: Uint8Array | null = null;
  return (text) => {
    if (!NON_ASCII.test(text)) return Buffer.from(text, 'latin1');
    if (!table) {
      table = new Uint8Array(0x10000);
      for (let b = 0x80; b < 0x100; b++) {
        const ch = decoder.decode(Uint8Array.of(b));
        if (ch.length === 1 && ch !== '\ufffd') table[ch.charCodeAt(0)] = b;
      }
    }
    const out = Buffer.allocUnsafe(text.length);
    let o = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) out[o++] = c;
      else {
        out[o++] = table[c] || QUESTION;
        // A surrogate pair is one character.
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
          const d = text.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) i++;
        }
      }
    }
    return out.subarray(0, o);
  };
}

/** utf8mb4: the engine's own text, taken and written as it is. */
export const UTF8: Charset = {
  name: 'utf8mb4',
  collation: 45,
  decoder: utf8,
  encode: (text) => Buffer.from(text, 'utf8'),
};
const known = new Map<string, Charset>();

/**
 * A character set named by SET NAMES, an introducer or character_set_client: UTF-8 for the
 * utf8 family, ascii and binary (a statement is text); a single-byte set converted; null for
 * one the listener does not convert (the multi-byte Asian sets, UTF-16/32).
 */
export function charsetNamed(name: string): Charset | null {
  const n = name.toLowerCase().replace(/^['"`]|['"`]$/g, '');
  if (/^(utf8|utf8mb3|utf8mb4|ascii|binary|default)$/.test(n)) return UTF8;
  const entry = SINGLE_BYTE[n];
  if (!entry) return null;
  let cs = known.get(n);
  if (!cs) {
    const [label, collation] = entry;
    const decoder = label === 'windows-1252' ? cp1252 : new TextDecoder(label);
    cs = { name: n, collation, decoder, encode: singleByteEncoder(decoder) };
    known.set(n, cs);
  }
  return cs;
}

/** The handshake's collation id as a character set (the single-byte sets' collations; the rest UTF-8). */
export function charsetOfCollation(id: number): Charset {
  const name = COLLATION_SET.get(id);
  return name ? charsetNamed(name)! : UTF8;
}

/** A name (COM_INIT_DB's database, COM_FIELD_LIST's table) sent in the connection's character set. */
export function decodeName(bytes: Buffer, charset: Charset): string {
  return charset === UTF8 ? bytes.toString('utf8') : charset.decoder.decode(bytes);
}
