/** Variable-length integers in bytes (the coverage rows' values, core/coverage-rows): 7 bits a byte, zigzag for signed ones; doubles, exact below 2^53. */

/** A value of a row must stay below this (exact as a double, and the zigzag of a difference of two too). */
export const LIMIT = 1125899906842624; // 2^50: a difference of two stays below 2^51, its zigzag below 2^52
export const LIMIT_BIG = 1125899906842624n;

/** A bigint as a double when |v| < 2^50, else NaN. */
export function num(v: bigint): number {
  return v < LIMIT_BIG && v > -LIMIT_BIG ? Number(v) : NaN;
}

/** Writes variable-length integers (7 bits a byte; zigzag for signed ones), doubles below 2^53. */
export class Writer {
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
  ) {}

  u(v: number): void {
    const b = this.bytes;
    while (v >= 128) {
      b[this.at++] = (v % 128) | 128;
      v = Math.floor(v / 128);
    }
    b[this.at++] = v;
  }

  /** Signed, |v| < 2^51. */
  s(v: number): void {
    this.u(v >= 0 ? 2 * v : -2 * v - 1);
  }
}

export class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
  ) {}

  u(): number {
    const b = this.bytes;
    let v = 0;
    let f = 1;
    for (;;) {
      const x = b[this.at++];
      v += (x & 127) * f;
      if (x < 128) return v;
      f *= 128;
    }
  }

  s(): number {
    const z = this.u();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }
}
