/**
 * `mm2-offset-syncs` flow node: reads MM2's offset-syncs topic (partition 0, from the
 * beginning) and sends the syncs into the flow as `OffsetSyncsMessage`s, in log order:
 * batches during the initial load, exactly one `loaded` after the last sync that existed when
 * it started (MM2's readToEnd: translation may start), then batches while tailing.
 *
 * Read-only: it never creates or writes the topic. Malformed records are skipped, counted and
 * reported. A missing topic is waited for; connection and consumer failures are retried with
 * back-off. A record is never sent twice within one start, even when kafkajs rejoins the
 * reader's throwaway group and the log is delivered again from the beginning.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode } from './lib/flow-node';
import { TOPICS, type OffsetSyncJson, type OffsetSyncsMessage } from './lib/contracts';
import { TopicReader, TopicNotFoundError, partitionZeroRange, type RawRecord } from '../kafka/topic-reader';
import { explainKafkaError } from '../kafka/client';
import type { ClusterConnection } from '../kafka/connection';
import { decodeOffsetSync } from '../core/offset-sync';

interface OffsetSyncsDef extends NodeDef {
  replication?: string;
}

/** What the node exposes for diagnostics (and tests): the throwaway consumer groups it used (the last 20). */
interface OffsetSyncsNode extends Node {
  readerGroupIds: string[];
}

/** A 'syncs' message carries at most this many syncs... */
const BATCH_MAX = 500;
/** ...and waits at most this long for more before it is sent. */
const BATCH_MS = 200;
/** Missing topic: look again this often. */
const TOPIC_RETRY_MS = 3000;
/** Connection/consumer failures: retry after 1 s, doubling up to 30 s. */
const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 30000;
/** At most one malformed-record warning per this period; the rest are summed up. */
const WARN_EVERY_MS = 10000;
/** Close: how long to wait for the consumer to leave its group. */
const STOP_TIMEOUT_MS = 8000;

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** HH:MM:SS for today, MM-DD HH:MM otherwise (local time). */
function shortTime(ms: number, now = Date.now()): string {
  const d = new Date(ms);
  const today = new Date(now);
  const hms = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  if (d.toDateString() === today.toDateString()) return hms;
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, 'mm2-offset-syncs');

  function MM2OffsetSyncsNode(this: OffsetSyncsNode, def: OffsetSyncsDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    node.readerGroupIds = [];
    const ctx = setupFlowNode(RED, node, def.replication, t);
    if (!ctx) return;
    const { status } = ctx;
    const where = ctx.rep.offsetSyncs();
    const topic = where.topic;
    const clusterAlias = where.alias;
    if (!where.connection || !topic) {
      status.fail(t('mm2-offset-syncs.errors.no-cluster'));
      node.error(t('mm2-offset-syncs.errors.no-cluster'));
      return;
    }
    const connection: ClusterConnection = ctx.use(where.connection);

    // ---- state of this start -------------------------------------------------------------
    let gen = 0; // reader generation: callbacks of a replaced reader are ignored
    let reader: TopicReader | null = null;
    const pendingStops = new Set<Promise<void>>();
    let lastOffset = -1n; // highest offset handled: the re-delivery guard
    let read = 0; // records read (valid + malformed)
    let malformed = 0;
    let syncs = 0;
    const partitions = new Set<string>();
    let lastSyncTime: number | null = null;
    let loadedSent = false;
    let buffer: OffsetSyncJson[] = [];
    let progressRead = 0n;
    let progressTotal = 0n;
    let readerRecords = 0n; // records the current reader delivered (for the loading percentage)
    let backoff = BACKOFF_MIN_MS;
    let lastError = '';
    let waiting = false;
    // malformed warnings, rate-limited
    let lastWarnAt = 0;
    let suppressed = 0;
    let suppressedLast: { offset: bigint; reason: string } | null = null;
    // timers (own handles: cleared on close and when superseded)
    let flushTimer: NodeJS.Timeout | null = null;
    let retryTimer: NodeJS.Timeout | null = null;
    let warnTimer: NodeJS.Timeout | null = null;

    const closed = (): boolean => ctx.closing;
    const stale = (g: number): boolean => ctx.closing || g !== gen;

    function message(event: OffsetSyncsMessage['payload']['event'], batch?: OffsetSyncJson[]): NodeMessage {
      const payload: OffsetSyncsMessage['payload'] = {
        event,
        source: { topic, cluster: clusterAlias },
        stats: { read, malformed, loaded: loadedSent },
      };
      if (batch) payload.syncs = batch;
      const msg: OffsetSyncsMessage = { topic: TOPICS.offsetSyncs, payload };
      return msg as unknown as NodeMessage;
    }

    function render(): void {
      if (closed() || waiting) return;
      if (!loadedSent) {
        const total = progressTotal;
        const done = progressRead > readerRecords ? progressRead : readerRecords;
        let percent = total > 0n ? Number((done * 100n) / total) : 0;
        if (percent > 99) percent = 99;
        status.activity({ fill: 'blue', shape: 'ring', text: t('mm2-common.status.loading', { percent }) });
        return;
      }
      let text =
        lastSyncTime !== null
          ? t('mm2-offset-syncs.status.summary', { syncs, partitions: partitions.size, time: shortTime(lastSyncTime) })
          : t('mm2-offset-syncs.status.summary-none', { syncs, partitions: partitions.size });
      if (malformed > 0) text += t('mm2-offset-syncs.status.malformed', { count: malformed });
      status.activity({ fill: malformed > 0 ? 'yellow' : 'green', shape: 'dot', text });
    }

    function flush(): void {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      if (closed()) return;
      if (buffer.length > 0) {
        const batch = buffer;
        buffer = [];
        node.send(message('syncs', batch));
      }
      render();
    }

    function scheduleFlush(): void {
      if (buffer.length >= BATCH_MAX) flush();
      else if (!flushTimer) flushTimer = setTimeout(flush, BATCH_MS);
    }

    function warnSuppressed(): void {
      warnTimer = null;
      if (closed() || suppressed === 0 || !suppressedLast) return;
      node.warn(
        t('mm2-offset-syncs.warn.malformed-more', {
          count: suppressed,
          topic,
          offset: suppressedLast.offset.toString(),
          reason: suppressedLast.reason,
        }),
      );
      suppressed = 0;
      suppressedLast = null;
      lastWarnAt = Date.now();
    }

    function reportMalformed(offset: bigint, reason: string): void {
      const now = Date.now();
      if (now - lastWarnAt >= WARN_EVERY_MS && suppressed === 0) {
        lastWarnAt = now;
        node.warn(t('mm2-offset-syncs.warn.malformed', { offset: offset.toString(), topic, reason }));
        return;
      }
      suppressed += 1;
      suppressedLast = { offset, reason };
      if (!warnTimer) warnTimer = setTimeout(warnSuppressed, Math.max(0, lastWarnAt + WARN_EVERY_MS - now));
    }

    function onRecord(rec: RawRecord): void {
      readerRecords += 1n;
      if (rec.offset <= lastOffset) return; // delivered again after a rejoin/restart: already sent
      lastOffset = rec.offset;
      read += 1;
      let sync;
      try {
        sync = decodeOffsetSync(rec.key, rec.value);
      } catch (e) {
        // decodeOffsetSync throws only MalformedRecordError; anything else is reported the same way
        malformed += 1;
        reportMalformed(rec.offset, (e as Error)?.message ?? String(e));
        if (!flushTimer) flushTimer = setTimeout(flush, BATCH_MS); // status shows the count soon
        return;
      }
      buffer.push({
        topic: sync.topic,
        partition: sync.partition,
        upstreamOffset: sync.upstreamOffset.toString(),
        downstreamOffset: sync.downstreamOffset.toString(),
      });
      syncs += 1;
      partitions.add(`${sync.partition}:${sync.topic}`);
      lastSyncTime = Number.isFinite(rec.timestamp) ? rec.timestamp : Date.now();
      scheduleFlush();
    }

    function onLoaded(): void {
      if (loadedSent) {
        render();
        return;
      }
      flush(); // every pre-existing sync goes out before 'loaded'
      loadedSent = true;
      backoff = BACKOFF_MIN_MS;
      node.send(message('loaded'));
      node.log(t('mm2-offset-syncs.log.loaded', { syncs, partitions: partitions.size, topic, cluster: clusterAlias, malformed }));
      if (suppressed > 0) {
        if (warnTimer) clearTimeout(warnTimer);
        warnSuppressed();
      }
      render();
    }

    /** Drops everything read so far (the topic was recreated) and tells the flow with 'reset'. */
    function reset(): void {
      flush();
      lastOffset = -1n;
      read = 0;
      malformed = 0;
      syncs = 0;
      partitions.clear();
      lastSyncTime = null;
      loadedSent = false;
      node.warn(t('mm2-offset-syncs.warn.recreated', { topic, cluster: clusterAlias }));
      node.send(message('reset'));
    }

    function schedule(ms: number): void {
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = setTimeout(() => {
        retryTimer = null;
        if (!closed()) kick();
      }, ms);
    }

    function stopLater(r: TopicReader): void {
      // Deferred: kafkajs arms its own restart timer right after emitting CRASH; stopping on
      // the next tick cancels that timer too, so no consumer restarts behind our back.
      const p = new Promise<void>((resolve) => {
        setTimeout(() => {
          r.stop().then(resolve, resolve);
        }, 0);
      });
      pendingStops.add(p);
      void p.finally(() => pendingStops.delete(p));
    }

    function failed(text: string, own: boolean): void {
      if (own) status.fail(text);
      const delay = backoff;
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
      if (text !== lastError) {
        lastError = text;
        node.error(t('mm2-offset-syncs.errors.retry', { topic, error: text, seconds: Math.round(delay / 1000) }));
      } else {
        node.debug(t('mm2-offset-syncs.errors.retry', { topic, error: text, seconds: Math.round(delay / 1000) }));
      }
      schedule(delay);
    }

    function waitForTopic(): void {
      if (!waiting) {
        waiting = true;
        node.warn(t('mm2-offset-syncs.warn.waiting-topic', { topic, cluster: clusterAlias }));
      }
      status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.waiting-topic', { topic }) });
      schedule(TOPIC_RETRY_MS);
    }

    function recovered(): void {
      if (lastError) {
        node.log(t('mm2-offset-syncs.log.recovered', { topic, cluster: clusterAlias }));
        lastError = '';
      }
    }

    async function attempt(g: number): Promise<void> {
      let admin;
      try {
        admin = await connection.admin(); // on failure the connection state (shown in our status) says why
      } catch (e) {
        if (!stale(g)) failed((e as Error).message, false);
        return;
      }
      if (stale(g)) return;
      let range: { low: bigint; high: bigint };
      try {
        range = await partitionZeroRange(admin, topic);
      } catch (e) {
        if (stale(g)) return;
        if (e instanceof TopicNotFoundError) {
          connection.reportOk();
          waitForTopic();
          return;
        }
        failed(connection.reportError(e), false);
        return;
      }
      if (stale(g)) return;
      connection.reportOk();
      if (waiting) {
        waiting = false;
        node.log(t('mm2-offset-syncs.log.found', { topic, cluster: clusterAlias }));
      }
      if (lastOffset >= 0n && range.high <= lastOffset) reset();
      progressRead = 0n;
      progressTotal = range.high - range.low;
      readerRecords = 0n;
      render();

      const r: TopicReader = new TopicReader(connection.kafka, admin, {
        topic,
        tail: true,
        onRecord: (rec) => {
          if (stale(g)) return;
          try {
            onRecord(rec);
          } catch (e) {
            node.warn(`${topic}@${rec.offset}: ${(e as Error).message}`); // never into kafkajs
          }
        },
        onProgress: (done, total) => {
          if (stale(g)) return;
          progressRead = done;
          progressTotal = total;
          render();
        },
        onLoaded: () => {
          if (stale(g)) return;
          try {
            onLoaded();
            recovered();
          } catch (e) {
            node.warn((e as Error).message);
          }
        },
        onError: (err) => {
          if (stale(g)) return;
          gen += 1; // this reader is done: ignore anything it still delivers
          reader = null;
          stopLater(r);
          flush();
          failed(t('mm2-offset-syncs.errors.reader', { error: explainKafkaError(err, connection.settings) }), true);
        },
      });
      reader = r;
      node.readerGroupIds.push(r.groupId);
      if (node.readerGroupIds.length > 20) node.readerGroupIds.shift(); // bounded when a broker flaps for days
      try {
        await r.start(); // resolves when the initial load is done; tailing goes on
      } catch (e) {
        if (stale(g)) {
          await r.stop();
          return;
        }
        gen += 1;
        reader = null;
        await r.stop();
        if (e instanceof TopicNotFoundError) {
          waitForTopic(); // deleted between our look-up and the reader's
          return;
        }
        failed(t('mm2-offset-syncs.errors.reader', { error: explainKafkaError(e, connection.settings) }), true);
      }
    }

    function kick(): void {
      gen += 1;
      const g = gen;
      attempt(g).catch((e) => {
        // attempt handles its failures; this is the last line of defence against a crash
        if (!stale(g)) failed((e as Error)?.message ?? String(e), true);
      });
    }

    ctx.onClose(async () => {
      gen += 1;
      for (const timer of [flushTimer, retryTimer, warnTimer]) if (timer) clearTimeout(timer);
      flushTimer = retryTimer = warnTimer = null;
      buffer = [];
      const r = reader;
      reader = null;
      const stops = [...pendingStops];
      if (r) stops.push(r.stop());
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(stops),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, STOP_TIMEOUT_MS);
        }),
      ]);
      if (timer) clearTimeout(timer);
    });

    kick();
  }

  RED.nodes.registerType('mm2-offset-syncs', MM2OffsetSyncsNode as unknown as (this: Node, def: NodeDef) => void);
};
