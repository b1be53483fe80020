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

/**
 * How many seeds a randomized test runs: `usual` in the suite (kept to seconds on a loaded 2-core
 * machine), or TEST_RANDOM_SEEDS when set, for a deeper run (`TEST_RANDOM_SEEDS=100 npm run test:unit`).
 * @param {number} usual
 * @returns {number}
 */
function randomSeeds(usual) {
  const v = Number(process.env.TEST_RANDOM_SEEDS);
  return Number.isInteger(v) && v > 0 ? v : usual;
}

module.exports = { seededRandom, randomSeeds };
