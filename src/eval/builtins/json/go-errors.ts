// The message Go gives for malformed JSON the way OPA reads json.unmarshal's argument:
// one json.Decoder.Decode (truncated input: "unexpected EOF", nothing at all: "EOF",
// syntax errors in encoding/json's scanner words), then a Token() call that must find
// nothing more ("error(s) occurred while decoding JSON: <next token>").

class Stop extends Error {}

/** Go's quoteChar: the offending byte in single quotes, escaped as strconv.Quote does. */
function quoteChar(b: number): string {
  if (b === 0x27) return "'\\''";
  if (b === 0x22) return '\'"\'';
  const q = JSON.stringify(String.fromCharCode(b)).slice(1, -1);
  const s = b < 0x20 && !/^\\[nrtbf]$/.test(q) ? '\\x' + b.toString(16).padStart(2, '0') : q === '\\u007f' ? '\\x7f' : q;
  return `'${s}'`;
}

class Scan {
  i = 0;
  constructor(readonly b: Uint8Array) {}
  fail(what: string): never {
    if (this.i >= this.b.length) throw new Stop('unexpected EOF');
    throw new Stop(`invalid character ${quoteChar(this.b[this.i]!)} ${what}`);
  }
  ws(): void {
    while (this.i < this.b.length && [0x20, 0x09, 0x0a, 0x0d].includes(this.b[this.i]!)) this.i++;
  }
  peek(): number | undefined {
    return this.b[this.i];
  }
  value(): void {
    this.ws();
    const c = this.peek();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) return this.number();
    for (const lit of ['true', 'false', 'null']) {
      if (c === lit.charCodeAt(0)) {
        this.i++;
        for (const ch of lit.slice(1)) {
          if (this.peek() !== ch.charCodeAt(0)) this.fail(`in literal ${lit} (expecting '${ch}')`);
          this.i++;
        }
        return;
      }
    }
    this.fail('looking for beginning of value');
  }
  object(): void {
    this.i++;
    this.ws();
    if (this.peek() === 0x7d) return void this.i++;
    for (;;) {
      this.ws();
      if (this.peek() !== 0x22) this.fail('looking for beginning of object key string');
      this.string();
      this.ws();
      if (this.peek() !== 0x3a) this.fail('after object key');
      this.i++;
      this.value();
      this.ws();
      if (this.peek() === 0x2c) this.i++;
      else if (this.peek() === 0x7d) return void this.i++;
      else this.fail('after object key:value pair');
    }
  }
  array(): void {
    this.i++;
    this.ws();
    if (this.peek() === 0x5d) return void this.i++;
    for (;;) {
      this.value();
      this.ws();
      if (this.peek() === 0x2c) this.i++;
      else if (this.peek() === 0x5d) return void this.i++;
      else this.fail('after array element');
    }
  }
  string(): void {
    this.i++;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('');
      if (c === 0x22) return void this.i++;
      if (c < 0x20) this.fail('in string literal');
      this.i++;
      if (c !== 0x5c) continue;
      const e = this.peek();
      if (e === 0x75) {
        this.i++;
        for (let k = 0; k < 4; k++) {
          const h = this.peek();
          if (h === undefined || !/[0-9a-fA-F]/.test(String.fromCharCode(h))) this.fail('in \\u hexadecimal character escape');
          this.i++;
        }
      } else if (e !== undefined && '"\\/bfnrt'.includes(String.fromCharCode(e))) this.i++;
      else this.fail('in string escape code');
    }
  }
  digits(): void {
    while (this.i < this.b.length && this.b[this.i]! >= 0x30 && this.b[this.i]! <= 0x39) this.i++;
  }
  isDigit(): boolean {
    const c = this.peek();
    return c !== undefined && c >= 0x30 && c <= 0x39;
  }
  number(): void {
    if (this.peek() === 0x2d) {
      this.i++;
      if (!this.isDigit()) this.fail('in numeric literal');
    }
    if (this.peek() === 0x30) this.i++;
    else this.digits();
    if (this.peek() === 0x2e) {
      this.i++;
      if (!this.isDigit()) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    if (this.peek() === 0x65 || this.peek() === 0x45) {
      this.i++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.i++;
      if (!this.isDigit()) this.fail('in exponent of numeric literal');
      this.digits();
    }
  }
}

/** Go's error for `text` as OPA decodes it, or undefined when Go would accept it. */
export function goJSONDecodeError(text: string): string | undefined {
  const s = new Scan(new TextEncoder().encode(text));
  s.ws();
  if (s.i >= s.b.length) return 'EOF';
  try {
    s.value();
  } catch (e) {
    if (e instanceof Stop) return e.message;
    throw e;
  }
  s.ws();
  if (s.i >= s.b.length) return undefined;
  // Something follows the value: Token() reads it (a delimiter or a whole scalar).
  const start = s.i;
  const c = s.peek()!;
  if (c === 0x7b || c === 0x5b) return `error(s) occurred while decoding JSON: ${String.fromCharCode(c)}`;
  try {
    s.value();
  } catch (e) {
    if (e instanceof Stop) return e.message;
    throw e;
  }
  let tok = new TextDecoder().decode(s.b.slice(start, s.i));
  if (c === 0x22) tok = JSON.parse(tok) as string;
  return `error(s) occurred while decoding JSON: ${tok}`;
}
