/**
 * The store statement's parameters written straight into bytes, one after another in a single
 * buffer: JSON text without a string per value, per row or per parameter, nothing to join, and no
 * large string for pg to encode to UTF-8 again (pg sends a Buffer parameter as it is, in binary
 * form). The bytes live outside the JavaScript heap, so a batch waiting for its commit holds
 * nothing the garbage collector must copy.
 *
 * A JSON parameter is sent as binary `jsonb`: its version byte (1) then the JSON text, which
 * Postgres parses exactly as it parses the same text sent as text. A `bytea` parameter is the
 * raw bytes.
 */

/** jsonb's binary form: this version byte, then the JSON text (Postgres's jsonb_recv). */
const JSONB_VERSION = 1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Buffers kept for reuse are at most this large: a batch of large bodies gets its own. */
const MAX_KEPT_BYTES = 1024 * 1024;

/**
 * Buffers of finished statements, kept for the next ones. A new buffer per batch would live
 * outside the heap until the garbage collector finds its Buffer object, and one that outlived
 * two young-generation collections waiting for its commit is found only by a full collection:
 * under load, megabytes of them at any moment.
 */
export class ParameterBuffers {
  private readonly free: Buffer[] = [];

  /** `kept`: at most this many are kept (one per statement in flight is enough). */
  constructor(private readonly kept: number) {}

  /** A kept buffer of at least `capacity` bytes, or a new one (a power of two: reused more). */
  take(capacity: number): Buffer {
    const index = this.free.findIndex((buffer) => buffer.length >= capacity);
    if (index < 0) return Buffer.allocUnsafe(2 ** Math.ceil(Math.log2(capacity)));
    const [buffer] = this.free.splice(index, 1);
    return buffer as Buffer;
  }

  /** Keeps the largest buffers given back, up to `kept`, and none over MAX_KEPT_BYTES. */
  give(buffer: Buffer): void {
    if (buffer.length > MAX_KEPT_BYTES) return;
    if (this.free.length < this.kept) {
      this.free.push(buffer);
      return;
    }
    const smallest = this.free.reduce(
      (at, kept, index, all) => (kept.length < (all[at] as Buffer).length ? index : at),
      0,
    );
    if ((this.free[smallest] as Buffer).length < buffer.length) this.free[smallest] = buffer;
  }
}

export class ParameterBytes {
  private bytes: Buffer;
  private at = 0;
  private start = 0;

  /**
   * `capacity`: a good guess of the bytes needed; more are made room for when needed. With
   * `buffers`, the buffer comes from there and goes back by `release`.
   */
  constructor(
    capacity: number,
    private readonly buffers?: ParameterBuffers,
  ) {
    const size = Math.max(capacity, 256);
    this.bytes = buffers ? buffers.take(size) : Buffer.allocUnsafe(size);
  }

  /**
   * Gives the buffer back for another statement: only once the statement that was sent these
   * parameters is done (pg copies them when it sends it, which may wait for the connection).
   */
  release(): void {
    this.buffers?.give(this.bytes);
  }

  /** Starts a jsonb parameter. */
  beginJsonb(): this {
    this.start = this.at;
    this.room(1);
    this.bytes[this.at++] = JSONB_VERSION;
    return this;
  }

  /** Starts a bytea parameter. */
  beginBytea(): this {
    this.start = this.at;
    return this;
  }

  /** The parameter begun last, as written. Its bytes are never written to again. */
  end(): Buffer {
    return this.bytes.subarray(this.start, this.at);
  }

  /** Bytes as they are (a body). */
  raw(piece: Uint8Array): this {
    this.room(piece.length);
    this.bytes.set(piece, this.at);
    this.at += piece.length;
    return this;
  }

  /**
   * JSON text that is printable ASCII and needs no escaping, as it is: the statement's own
   * punctuation and keys (`,"webhook_id":`), never a value from a delivery.
   */
  ascii(text: string): this {
    const length = text.length;
    this.room(length);
    const bytes = this.bytes;
    let at = this.at;
    for (let i = 0; i < length; i += 1) bytes[at++] = text.charCodeAt(i);
    this.at = at;
    return this;
  }

  /**
   * A string as a JSON string literal. Printable ASCII without a quote or backslash (nearly
   * every value stored: ids, amounts, dates, names) is copied as it is; anything else is written
   * as JSON.stringify writes it (its escapes, `\u` for a lone surrogate), in UTF-8.
   */
  string(value: string): this {
    const length = value.length;
    this.room(length + 2);
    const bytes = this.bytes;
    let at = this.at;
    bytes[at++] = QUOTE;
    for (let i = 0; i < length; i += 1) {
      const code = value.charCodeAt(i);
      if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) {
        return this.escaped(value);
      }
      bytes[at++] = code;
    }
    bytes[at++] = QUOTE;
    this.at = at;
    return this;
  }

  /** A string, or null. */
  nullableString(value: string | null): this {
    return value === null ? this.ascii('null') : this.string(value);
  }

  /** A number as JSON.stringify writes it (null for NaN and the infinities), or null. */
  number(value: number | null): this {
    return this.ascii(value !== null && Number.isFinite(value) ? String(value) : 'null');
  }

  boolean(value: boolean): this {
    return this.ascii(value ? 'true' : 'false');
  }

  /** What JSON.stringify writes for any other value (a list of problems, say). */
  json(value: unknown): this {
    return this.utf8(JSON.stringify(value) ?? 'null');
  }

  private escaped(value: string): this {
    return this.utf8(JSON.stringify(value));
  }

  /** JSON text from JSON.stringify: its lone surrogates are escaped, so UTF-8 holds it exactly. */
  private utf8(text: string): this {
    this.room(3 * text.length);
    this.at += this.bytes.write(text, this.at, 'utf8');
    return this;
  }

  private room(bytes: number): void {
    const needed = this.at + bytes;
    if (needed <= this.bytes.length) return;
    // The parameters ended so far keep the old buffer (they are views of it); only the
    // parameter being written moves.
    const grown = Buffer.allocUnsafe(Math.max(needed, 2 * this.bytes.length));
    this.bytes.copy(grown, 0, this.start, this.at);
    this.at -= this.start;
    this.start = 0;
    this.bytes = grown;
  }
}
