'use strict';
/**
 * A small seeded pseudo-random generator (xorshift32), shared by the tests and the benches that
 * need repeatable random workloads: the same seed gives the same sequence, numbers in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
function seededRandom(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

module.exports = { seededRandom };
