'use strict';
/**
 * Class data sharing for the JVMs the harness starts (brokers, the storage formatter, Kafka's
 * tools, Connect workers, MirrorMaker 2): a JVM started on a classpath of a few hundred jars
 * spends most of its start opening them and loading classes. The first run of a main class on a
 * classpath writes the classes it loaded into an archive at exit (-XX:ArchiveClassesAtExit, JDK
 * 13 and later); later runs map that archive (-XX:SharedArchiveFile) and start in a fraction of
 * the time (Kafka's StorageTool: 2.8 s -> 0.7 s here).
 *
 * The archive lives beside the jars' folder, one per folder and main class. A JVM that cannot use an archive (another
 * JDK, changed jars) ignores it and starts as without (-Xshare:auto, the default), so a stale
 * archive costs nothing but the gain. It is written under a name of its own and renamed into
 * place once the JVM has exited, so JVMs started at the same time never read a half-written one.
 * MM2_NO_CDS=1 turns it off.
 */
const fs = require('node:fs');
const path = require('node:path');

const LOG = '-Xlog:all=warning:stderr';

/**
 * The JVM options for `mainClass` on the jars in `libs`, and `settle`, to call once that JVM
 * has exited: with `exited` true (it exited by itself or on SIGTERM, not killed by a signal) it
 * moves a freshly written archive into place; otherwise it removes what may be a partial one.
 * @param {string} libs the folder of the jars (the archive is kept there)
 * @param {string} mainClass
 * @returns {{ args: string[], writing: boolean, settle: (exited: boolean) => void }}
 *   (`writing`: this run writes the archive, so its exit takes a few seconds longer)
 */
function cdsOptions(libs, mainClass) {
  if (process.env.MM2_NO_CDS === '1') return { args: [], writing: false, settle: () => undefined };
  const archive = path.join(libs, '..', `cds-${path.basename(libs)}-${mainClass}.jsa`);
  // the JVM's warnings (e.g. an archive it cannot use) on stderr: a tool's stdout is parsed
  if (fs.existsSync(archive)) return { args: [LOG, `-XX:SharedArchiveFile=${archive}`], writing: false, settle: () => undefined };
  const fresh = `${archive}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  return {
    args: [LOG, `-XX:ArchiveClassesAtExit=${fresh}`],
    writing: true,
    settle: (exited) => {
      try {
        if (exited && fs.statSync(fresh).size > 0 && !fs.existsSync(archive)) fs.renameSync(fresh, archive);
      } catch {
        /* not written (the JVM was killed): the next run tries again */
      }
      fs.rmSync(fresh, { force: true });
    },
  };
}

module.exports = { cdsOptions };
