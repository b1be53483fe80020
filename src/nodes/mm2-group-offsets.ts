/**
 * `mm2-group-offsets` flow node: MM2's `sync.group.offsets` (spec §8.4) done safely. Writes the
 * checkpointed (translated) offsets of consumer groups to the TARGET cluster, one admin-style
 * commit per group, every `sync.group.offsets.interval.seconds` and on demand. The cycle logic
 * lives in ../kafka/group-offset-syncer (no Node-RED there); this file is the shell: settings,
 * input/output, status, timers, close.
 */
import type { NodeAPI, Node, NodeDef, NodeMessage, SendFn, DoneFn } from './lib/red';
import { makeTranslate } from './lib/i18n';
import { setupFlowNode, truncate } from './lib/flow-node';
import { TOPICS } from './lib/contracts';
import { nodeEnvLookup, problemText, resolveNodeSettings } from './lib/settings';
import { CONFIG_DEFAULTS } from '../core/config-properties';
import { substituteEnv } from '../core/env-substitution';
import { ConfigError } from '../core/errors';
import { intervalMs as readIntervalMs } from '../core/intervals';
import { createGroupFilter, type NameFilter } from '../core/filters';
import { explainKafkaError } from '../kafka/client';
import { GroupOffsetSyncer, type GroupOffsetsCycle } from '../kafka/group-offset-syncer';
import { CheckpointsTopicRunner } from '../kafka/checkpoints-topic-runner';

interface GroupOffsetsDef extends NodeDef {
  replication?: string;
  mode?: string;
  syncGroupOffsetsIntervalSeconds?: string | number;
  groups?: string;
  groupsExclude?: string;
}

const SET = 'mm2-group-offsets';

/** The MM2 properties read by the shared resolver (defaults, `${VAR}`, catalogue checks). */
const FILTER_SETTINGS = ['groups', 'groups.exclude'] as const;

/** A field's value as text ('' when absent). */
function fieldText(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

/** A CheckpointsMessage is recognised by its payload shape (`latest` map of group -> checkpoints). */
function checkpointsLatest(msg: NodeMessage): Record<string, unknown> | null {
  const p = msg.payload as { latest?: unknown } | null | undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return null;
  const latest = p.latest;
  if (!latest || typeof latest !== 'object' || Array.isArray(latest)) return null;
  return latest as Record<string, unknown>;
}

export = function register(RED: NodeAPI): void {
  const t = makeTranslate(RED, SET);

  function MM2GroupOffsetsNode(this: Node, def: GroupOffsetsDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    const maybeCtx = setupFlowNode(RED, node, def.replication, t);
    if (!maybeCtx) return;
    const ctx = maybeCtx;
    const { rep, status } = ctx;

    // ---- settings (empty = MM2's default, `${VAR}` substituted, an unset variable is an error) ----
    const mode: 'input' | 'topic' = def.mode === 'topic' ? 'topic' : 'input';
    if (def.mode !== undefined && def.mode !== null && def.mode !== '' && def.mode !== 'input' && def.mode !== 'topic') {
      const text = t('mm2-group-offsets.errors.bad-mode', { value: String(def.mode) });
      status.fail(text);
      node.error(text);
      return;
    }
    const lookup = nodeEnvLookup(RED, node);
    const resolved = resolveNodeSettings(def, FILTER_SETTINGS, lookup);
    // The interval is read here rather than by the catalogue (a `long` there): this node takes
    // fractional seconds, as its editor does.
    const interval = substituteEnv(fieldText(def.syncGroupOffsetsIntervalSeconds), lookup);
    const missing = [...interval.missing, ...resolved.missingEnv.filter((n) => !interval.missing.includes(n))];
    if (missing.length > 0) {
      const text = t('mm2-group-offsets.errors.env-missing', { names: missing.join(', ') });
      status.fail(text);
      node.error(text);
      return;
    }
    let intervalMs: number;
    try {
      intervalMs = readIntervalMs('sync.group.offsets.interval.seconds', interval.value, Number(CONFIG_DEFAULTS['sync.group.offsets.interval.seconds']));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      const text = t('mm2-group-offsets.errors.bad-interval', { reason: e.problems[0].reason });
      status.fail(text);
      node.error(text);
      return;
    }
    const intervalS = intervalMs / 1000;
    let groupFilter: NameFilter | null = null;
    let filterError = resolved.problems.map(problemText).join('; ');
    if (filterError === '') {
      try {
        groupFilter = createGroupFilter({ groups: resolved.values['groups'] as string, 'groups.exclude': resolved.values['groups.exclude'] as string });
      } catch (e) {
        filterError = (e as Error).message;
      }
    }
    if (!groupFilter) {
      const text = t('mm2-common.errors.bad-regex', { error: filterError });
      status.fail(text);
      node.error(text);
      return;
    }
    const maybeConnection = rep.targetNode?.connection ?? null;
    if (!maybeConnection) {
      const text = t('mm2-group-offsets.errors.no-target');
      status.fail(text);
      node.error(text);
      return;
    }
    const connection = ctx.use(maybeConnection);
    const checkpointsTopic = rep.checkpointsTopic();
    const syncer = new GroupOffsetSyncer({ connection, groupFilter });

    // ---- logging: a failure once per change, counters once a minute (the shared FailureLog) ----
    const warnLimited = (kind: string, text: string): void => {
      ctx.log.warn(kind, text);
    };
    const countLimited = (kind: string, text: string): void => {
      ctx.log.limited(kind, text, 60000);
    };
    let lastCycleError = '';

    // ---- status ----
    let ready = mode === 'input';
    let last: { result: GroupOffsetsCycle; at: number } | null = null;
    function age(ms: number): string {
      const s = Math.max(0, Math.round(ms / 1000));
      return s < 120 ? t('mm2-group-offsets.status.age-s', { n: s }) : t('mm2-group-offsets.status.age-min', { n: Math.round(s / 60) });
    }
    function renderCycleStatus(): void {
      if (!last || lastCycleError) return;
      const r = last.result;
      const when = age(Date.now() - last.at);
      if (Date.now() - last.at > 2 * intervalMs + 30000) {
        // syncs stopped completing (a request that hangs): not green
        status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-group-offsets.status.stale', { age: when }) });
        return;
      }
      // Green only while the node does its job: some selected group has its target offset.
      const considered = r.written.length + r.skipped.length;
      if (considered === 0) {
        status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-group-offsets.status.waiting-checkpoints', { age: when }) });
        return;
      }
      const active = r.skipped.filter((s) => s.code === 'group-active').length;
      const errors = r.skipped.filter((s) => s.code === 'error');
      const failed = errors.length;
      if (failed === considered) {
        status.fail(t('mm2-group-offsets.status.unreachable', { error: errors[0].reason }));
        return;
      }
      // (a group with members on the target is its consumers' business, never ours)
      const withOffset = r.written.length + active + r.skipped.filter((s) => s.code === 'up-to-date').length;
      const parts = [t('mm2-group-offsets.status.synced', { count: r.written.length })];
      if (active > 0) parts.push(t('mm2-group-offsets.status.active', { count: active }));
      if (failed > 0) parts.push(t('mm2-group-offsets.status.failed', { count: failed }));
      const malformed = syncer.stats.malformed;
      if (malformed > 0) parts.push(t('mm2-group-offsets.status.malformed', { count: malformed }));
      if (withOffset === 0) parts.unshift(t('mm2-group-offsets.status.none-written'));
      status.activity({
        fill: failed > 0 || malformed > 0 || withOffset === 0 ? 'yellow' : 'green',
        shape: failed > 0 || withOffset === 0 ? 'ring' : 'dot',
        text: truncate(`${parts.join(', ')} / ${when}`),
      });
    }
    if (mode === 'input') {
      status.activity({ fill: 'grey', shape: 'ring', text: t('mm2-group-offsets.status.first-sync', { seconds: intervalS }) });
    }
    ctx.every(5000, renderCycleStatus);

    // ---- one cycle ----
    function cycle(msg: NodeMessage | null, send: SendFn | null, done: DoneFn | null): void {
      syncer.sync().then(
        (result) => {
          lastCycleError = '';
          ctx.log.ok('cycle');
          last = { result, at: Date.now() };
          renderCycleStatus();
          const failed = result.skipped.filter((s) => s.code === 'error');
          if (failed.length > 0) {
            warnLimited('failed', t('mm2-group-offsets.warn.groups-failed', { count: failed.length, group: failed[0].group, error: failed[0].reason }));
          }
          if (ctx.closing) {
            done?.();
            return;
          }
          const out: NodeMessage = msg ?? {};
          out.topic = TOPICS.groupOffsets;
          out.payload = result;
          if (send) send(out);
          else node.send(out);
          done?.();
        },
        (err: unknown) => {
          const text = explainKafkaError(err, connection.settings);
          if (ctx.closing) {
            done?.();
            return;
          }
          status.fail(t('mm2-group-offsets.status.error', { error: text }));
          if (done) {
            done(new Error(t('mm2-group-offsets.errors.cycle-failed', { error: text })));
          } else {
            ctx.log.error('cycle', t('mm2-group-offsets.errors.cycle-failed', { error: text }));
          }
          lastCycleError = text;
        },
      )
      .catch((e: unknown) => {
        // a failure in the handlers above (never expected): report it, never leave it unhandled
        node.error(t('mm2-group-offsets.errors.cycle-failed', { error: (e as Error)?.message ?? String(e) }));
      });
    }

    ctx.every(intervalMs, () => {
      if (!ready) return;
      if (syncer.busy) {
        warnLimited('overrun', t('mm2-group-offsets.warn.overrun', { seconds: intervalS }));
        return;
      }
      cycle(null, null, null);
    });

    // ---- mode topic: follow the checkpoints topic on the target (kafka/checkpoints-topic-runner) ----
    let runner: CheckpointsTopicRunner | null = null;
    if (mode === 'topic') {
      runner = new CheckpointsTopicRunner({
        connection,
        topic: checkpointsTopic,
        syncer,
        groupPrefix: `__mm2-node-red-group-offsets-${node.id}`,
        retryMs: Math.min(intervalMs, 10000),
        events: {
          progress: (read, total) => {
            if (ready || ctx.closing) return;
            const percent = total > 0n ? Number((read * 100n) / total) : 100;
            status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.loading', { percent }) });
          },
          loaded: () => {
            if (ctx.closing) return;
            ready = true;
            const s = syncer.stats;
            status.activity({ fill: 'grey', shape: 'dot', text: t('mm2-group-offsets.status.loaded', { groups: s.groups, partitions: s.partitions }) });
          },
          malformed: (err, offset) => {
            if (ready) renderCycleStatus();
            countLimited(
              'malformed',
              t('mm2-group-offsets.warn.malformed', { topic: checkpointsTopic, offset: offset.toString(), error: err.message, total: syncer.stats.malformed }),
            );
          },
          readerError: (err) => {
            if (!ctx.closing) warnLimited('reader', t('mm2-group-offsets.warn.reader', { topic: checkpointsTopic, error: explainKafkaError(err) }));
          },
          waitingTopic: () => {
            if (!ctx.closing) status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.waiting-topic', { topic: checkpointsTopic }) });
          },
          startFailed: (text) => {
            if (ctx.closing) return;
            status.fail(t('mm2-group-offsets.status.error', { error: text }));
            warnLimited('start', t('mm2-group-offsets.warn.reader', { topic: checkpointsTopic, error: text }));
          },
        },
      });
      status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-common.status.connecting') });
      runner.start();
    }

    // ---- input ----
    node.on('input', (msg: NodeMessage, send: SendFn, done: DoneFn) => {
      try {
        const latest = checkpointsLatest(msg);
        if (latest !== null) {
          if (mode === 'input') {
            const r = syncer.applyCheckpointsJson(latest);
            if (r.malformed > 0) {
              countLimited('bad-entries', t('mm2-group-offsets.warn.bad-entries', { count: r.malformed, total: syncer.stats.malformed }));
            }
            if (!last && !lastCycleError) {
              const s = syncer.stats;
              status.activity({ fill: 'grey', shape: 'dot', text: t('mm2-group-offsets.status.received', { groups: s.groups, partitions: s.partitions }) });
            }
          }
          if (msg.sync !== true) {
            done();
            return;
          }
        }
        if (!ready) {
          done(new Error(t('mm2-group-offsets.errors.not-ready', { topic: checkpointsTopic })));
          return;
        }
        cycle(msg, send, done);
      } catch (e) {
        done(e as Error);
      }
    });

    ctx.onClose(async () => {
      if (runner) await runner.stop();
      await syncer.close();
    });
  }

  RED.nodes.registerType(SET, MM2GroupOffsetsNode as unknown as (this: Node, def: NodeDef) => void);
};
