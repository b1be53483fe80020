/**
 * `mm2-group-offsets` sync runs: the full reconcile on the timer or on demand, the partial runs
 * for the groups whose checkpoints changed (a CheckpointsMessage with `full: false` in mode
 * "input", new records of the checkpoints topic in mode "topic", batched for CHANGES_WINDOW_MS),
 * their output messages, status and failures; and what an input message asks (checkpoints to
 * apply in mode "input", `msg.sync` or any other message: a full run now; `msg.action =
 * 'switchover'`: a planned switchover's last step).
 */
import type { GroupOffsetsMode } from './mm2-group-offsets-settings';
import type { DoneFn, Node, NodeMessage, SendFn } from '../shared/red';
import { counted, type Translate } from '../shared/i18n';
import type { FlowNodeContext, StatusView } from '../shared/flow-node';
import { TOPICS, groupOffsetsPayload } from '../shared/contracts';
import { GroupOffsetsRuns, runsStatus } from './mm2-group-offsets-status';
import { COUNT_EVERY_MS } from './mm2-group-offsets-topic-mode';
import { explainKafkaError } from '../../kafka/client';
import { readSwitchoverPlan, verifySwitchover } from '../../core/switchover';
import { isSwitchoverRequest, switchoverOf } from '../shared/switchover-request';
import type { ClusterConnection } from '../../kafka/connection';
import type { GroupOffsetSyncer, GroupOffsetsCycle } from '../../engines/group-offset-syncer';
import { foreignCheckpointsOrigin, type CheckpointsOrigin } from '../../core/checkpoints-origin';
import { Timer } from '../../core/timers';

export interface GroupOffsetsCyclesOptions {
  node: Pick<Node, 'send' | 'error'>;
  ctx: FlowNodeContext;
  t: Translate;
  syncer: GroupOffsetSyncer;
  connection: ClusterConnection;
  mode: GroupOffsetsMode;
  intervalMs: number;
  /** The checkpoints topic on the target (named when a cycle is asked for before the load). */
  checkpointsTopic: string;
  /** The node's replication flow: checkpoints messages that say they come from another are refused. */
  origin: CheckpointsOrigin;
  /** Mode "input": the checkpoints of a message were taken (no checkpoint node of the replication runs here: the wire brings the state). */
  wireTaken?(): void;
  /** The status with the instance's share of the flow when several Node-RED instances share it (nodes/shared/share-status). */
  decorate?(view: StatusView): StatusView;
}

/** At most this many distinct causes of refused messages are warned about (each once); later ones are only counted. */
const FOREIGN_CAUSES_MAX = 20;

/** New checkpoint records (mode "topic") are gathered this long before their groups are synced (ms). */
export const CHANGES_WINDOW_MS = 50;

/**
 * A CheckpointsMessage is recognised by its payload shape (`latest` map of group -> checkpoints).
 * `full: false`: `latest` holds only the groups that changed; anything else (true, or absent from
 * older senders): every selected group.
 */
function checkpointsLatest(msg: NodeMessage): { latest: Record<string, unknown>; full: boolean } | null {
  const p = msg.payload as { latest?: unknown; full?: unknown } | null | undefined;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return null;
  const latest = p.latest;
  if (!latest || typeof latest !== 'object' || Array.isArray(latest)) return null;
  return { latest: latest as Record<string, unknown>, full: p.full !== false };
}

export class GroupOffsetsCycles {
  /** Whether runs may start (mode "input": at once; mode "topic": once the topic is loaded). */
  ready: boolean;
  /** What the runs (full and partial) did, for the status. */
  private readonly runs = new GroupOffsetsRuns();
  private lastCycleError = '';
  /** A full run is queued or running (the timer does not queue another). */
  private fullInFlight = false;
  private firstFullSeen = false;
  private readonly changed = new Set<string>();
  private readonly changesTimer = new Timer();
  /** The causes of refused messages already warned about (field and value). */
  private readonly foreignCauses = new Set<string>();

  constructor(private readonly o: GroupOffsetsCyclesOptions) {
    this.ready = o.mode === 'input';
    if (o.mode === 'input') {
      o.ctx.status.activity({ fill: 'grey', shape: 'ring', text: o.t('mm2-group-offsets.status.first-sync', { seconds: o.intervalMs / 1000 }) });
    }
  }

  /** The status of the runs so far (nothing before the first, nor after a failed one). */
  render(): void {
    if (this.lastCycleError) return;
    // mode replication while no checkpoint node of the replication runs here (or it restores):
    // the node writes nothing, and its status says what it waits for; the last runs' green must not come back
    if (this.o.mode === 'replication' && !this.ready) return;
    const view = runsStatus(this.o.t, this.runs, this.o.intervalMs, this.o.syncer.stats.malformed);
    if (view) this.o.ctx.status.show(this.o.decorate ? this.o.decorate(view) : view);
  }

  /** The timer: a full run, unless not ready or the previous full run still goes on (an overrun). */
  tick(): void {
    if (!this.ready) return;
    if (this.fullInFlight) {
      this.o.ctx.log.warn('overrun', this.o.t('mm2-group-offsets.warn.overrun', { seconds: this.o.intervalMs / 1000 }));
      return;
    }
    this.run(null, null, null);
  }

  /** Groups whose checkpoints just changed (mode "topic": a new record): synced together after CHANGES_WINDOW_MS. */
  groupChanged(group: string): void {
    if (!this.ready || this.o.ctx.closing) return;
    this.changed.add(group);
    if (this.changesTimer.pending) return;
    this.changesTimer.after(CHANGES_WINDOW_MS, () => {
      const groups = [...this.changed];
      this.changed.clear();
      if (groups.length > 0 && !this.o.ctx.closing) this.report(this.o.syncer.syncGroups(groups), null, null, null);
    });
  }

  /** Stops the batching timer (on close). */
  stop(): void {
    this.changesTimer.stop();
    this.changed.clear();
  }

  /** An input message: checkpoints to apply (mode "input") and/or a run now; a planned switchover's last step. */
  input(msg: NodeMessage, send: SendFn, done: DoneFn): void {
    const { ctx, t, syncer } = this.o;
    if (isSwitchoverRequest(msg)) return this.switchover(msg, send, done);
    const cps = checkpointsLatest(msg);
    if (cps !== null && this.o.mode === 'input' && this.refusedAsForeign(msg)) {
      // nothing of it is taken; a sync it asks for still runs, on our own checkpoints
      if (msg.sync !== true) return done();
    } else if (cps !== null) {
      // while the replication's checkpoint node runs here its store is read in place: the
      // message is its report of what is already there (an old flow's wire, harmless)
      if (this.o.mode === 'input' && !syncer.following) {
        const r = syncer.applyCheckpointsJson(cps.latest);
        this.o.wireTaken?.();
        if (r.malformed > 0) {
          ctx.log.limited('bad-entries', t('mm2-group-offsets.warn.bad-entries', { count: r.malformed, total: syncer.stats.malformed }), COUNT_EVERY_MS);
        }
        if (this.runs.lastRunAt === null && !this.lastCycleError) {
          const s = syncer.stats;
          ctx.status.activity({ fill: 'grey', shape: 'dot', text: t('mm2-group-offsets.status.received', { groups: counted(t, 'groups', s.groups), partitions: counted(t, 'partitions', s.partitions) }) });
        }
        if (msg.sync !== true) {
          if (cps.full && !this.firstFullSeen) {
            // the whole state once after the start: one full run now, then the timer's
            this.firstFullSeen = true;
            if (!this.fullInFlight) return this.run(null, send, done);
          }
          // the groups whose checkpoints moved (a partial message's groups, or what a full
          // message changed): written now, no waiting for the timer
          const now = cps.full ? r.changed : r.groups;
          if (now.length > 0) return this.report(syncer.syncGroups(now), null, send, done);
        }
      }
      if (msg.sync !== true) return done();
    }
    if (!this.ready) return done(this.notReady());
    this.run(msg, send, done);
  }

  /** Why a run cannot start yet. */
  private notReady(): Error {
    const { t, origin } = this.o;
    if (this.o.mode === 'replication') {
      return new Error(t('mm2-group-offsets.errors.not-ready-replication', { source: origin.sourceCluster, target: origin.targetCluster, topic: this.o.checkpointsTopic }));
    }
    return new Error(t('mm2-group-offsets.errors.not-ready', { topic: this.o.checkpointsTopic }));
  }

  /**
   * Whether the checkpoints of `msg` say they come from another replication flow (its
   * sourceCluster, targetCluster or checkpointsTopic is not ours: core/checkpoints-origin). Such a
   * message is refused: counted, warned about once per cause, and the status says so (as
   * mm2-checkpoint refuses offset syncs of another replication's topic).
   */
  private refusedAsForeign(msg: NodeMessage): boolean {
    const { ctx, t } = this.o;
    const foreign = foreignCheckpointsOrigin(msg.payload, this.o.origin);
    if (foreign === null) return false;
    this.runs.foreign++;
    const cause = `${foreign.field}\u0000${foreign.got}`;
    if (!this.foreignCauses.has(cause) && this.foreignCauses.size < FOREIGN_CAUSES_MAX) {
      this.foreignCauses.add(cause);
      ctx.log.warn(`foreign:${cause}`, t('mm2-group-offsets.warn.foreign', { field: foreign.field, got: foreign.got, expected: foreign.expected }));
    }
    if (this.runs.lastRunAt === null && !this.lastCycleError) {
      ctx.status.activity({ fill: 'yellow', shape: 'ring', text: t('mm2-group-offsets.status.foreign-first', { count: this.runs.foreign, field: foreign.field, got: foreign.got }) });
    } else this.render();
    return true;
  }

  /**
   * A planned switchover's last step (nodes/shared/switchover-request): the message's checkpoints taken (in both
   * modes: they are what the checkpoint node has just written to the checkpoints topic), every
   * group synced now, the groups' offsets read back on the target and the report sent.
   */
  private switchover(msg: NodeMessage, send: SendFn, done: DoneFn): void {
    const { t, syncer, connection } = this.o;
    const plan = readSwitchoverPlan(switchoverOf(msg).plan);
    if (!plan) return done(new Error(t('mm2-group-offsets.errors.switchover-no-plan')));
    const cps = checkpointsLatest(msg);
    if (cps !== null && !syncer.following && !this.refusedAsForeign(msg)) syncer.applyCheckpointsJson(cps.latest);
    if (!this.ready) return done(this.notReady());
    this.fullInFlight = true;
    const run = syncer.sync();
    run.then(
      () => (this.fullInFlight = false),
      () => (this.fullInFlight = false),
    );
    // the sync's own message and status, as any run; its failure ends the message
    this.report(run, null, null, (err?: Error) => err && done(err));
    const groups = plan.groups.map((g) => g.group);
    run
      .then(
        async (result) => {
          const read = await connection.offsetFetcher().fetchMany(groups);
          const excluded = new Set(groups.filter((g) => !syncer.selects(g)));
          const report = verifySwitchover(plan, { committed: read.offsets, readFailed: read.failed, skipped: result.skipped, excluded });
          send({ ...msg, topic: TOPICS.switchover, payload: report });
          done();
        },
        () => undefined, // reported above
      )
      .catch((e: unknown) => done(new Error(t('mm2-group-offsets.errors.cycle-failed', { error: explainKafkaError(e, connection.settings) }))));
  }

  /** A full run; its result is sent (as `msg` when one asked for it), its failure ends `done` or is logged. */
  run(msg: NodeMessage | null, send: SendFn | null, done: DoneFn | null): void {
    this.fullInFlight = true;
    const p = this.o.syncer.sync();
    p.then(
      () => (this.fullInFlight = false),
      () => (this.fullInFlight = false),
    );
    this.report(p, msg, send, done);
  }

  /** Reports a run: its result is sent (as `msg` when one asked for it), its failure ends `done` or is logged. */
  report(run: Promise<GroupOffsetsCycle>, msg: NodeMessage | null, send: SendFn | null, done: DoneFn | null): void {
    const { node, ctx, t } = this.o;
    run.then(
      (result) => {
        this.lastCycleError = '';
        ctx.log.ok('cycle');
        // the status counts what either path wrote (a partial run's groups, a full run's)
        this.runs.record(result, Date.now());
        this.render();
        const failed = result.skipped.filter((s) => s.code === 'error');
        if (failed.length > 0) {
          ctx.log.warn('failed', t('mm2-group-offsets.warn.groups-failed', { count: failed.length, group: failed[0].group, error: failed[0].reason }));
        }
        if (ctx.closing) {
          done?.();
          return;
        }
        const out: NodeMessage = msg ?? {};
        out.topic = TOPICS.groupOffsets;
        out.payload = groupOffsetsPayload(result);
        if (send) send(out);
        else node.send(out);
        done?.();
      },
      (err: unknown) => {
        const text = explainKafkaError(err, this.o.connection.settings);
        if (ctx.closing) {
          done?.();
          return;
        }
        ctx.status.fail(t('mm2-group-offsets.status.error', { error: text }));
        if (done) {
          done(new Error(t('mm2-group-offsets.errors.cycle-failed', { error: text })));
        } else {
          ctx.log.error('cycle', t('mm2-group-offsets.errors.cycle-failed', { error: text }));
        }
        this.lastCycleError = text;
      },
    )
    .catch((e: unknown) => {
      // a failure in the handlers above (never expected): report it, never leave it unhandled
      node.error(t('mm2-group-offsets.errors.cycle-failed', { error: (e as Error)?.message ?? String(e) }));
    });
  }
}
