/**
 * The settings of an `mm2-mirror` node, as MM2's MirrorSourceConfig reads them
 * (core/mirror-settings: MM2 property names, defaults, `${VAR}`, catalogue and interval checks).
 */
import type { Translate } from '../shared/i18n';
import type { EnvLookup } from '../shared/settings';
import { parseMirrorSettings, type MirrorSettings, type MirrorSettingsInput } from '../../core/mirror-settings';
import { settingsOk, settingsRefused, type SettingsRead } from '../shared/settings-read';

export type MirrorDefFields = MirrorSettingsInput;

export function readMirrorSettings(def: MirrorDefFields, lookup: EnvLookup, t: Translate): SettingsRead<MirrorSettings> {
  try {
    return settingsOk(
      parseMirrorSettings(
        {
          topics: def.topics,
          topicsExclude: def.topicsExclude,
          offsetLagMax: def.offsetLagMax,
          refreshTopicsIntervalSeconds: def.refreshTopicsIntervalSeconds,
          heartbeatsReplicationEnabled: def.heartbeatsReplicationEnabled,
          replicationFactor: def.replicationFactor,
          emitOffsetSyncsEnabled: def.emitOffsetSyncsEnabled,
          offsetFlushIntervalMs: def.offsetFlushIntervalMs,
          syncTopicConfigsEnabled: def.syncTopicConfigsEnabled,
          syncTopicConfigsIntervalSeconds: def.syncTopicConfigsIntervalSeconds,
          configPropertiesExclude: def.configPropertiesExclude,
          syncTopicAclsEnabled: def.syncTopicAclsEnabled,
          syncTopicAclsIntervalSeconds: def.syncTopicAclsIntervalSeconds,
        },
        lookup,
      ),
    );
  } catch (e) {
    return settingsRefused(t('mm2-mirror.errors.bad-settings', { problems: (e as Error).message }));
  }
}
