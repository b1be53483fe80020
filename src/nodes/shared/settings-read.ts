/**
 * What a node's settings reader returns (one reader per node, beside this file, as Kafka has one
 * Mirror*Config class per connector): the typed values, or the problems that refuse them. A bad
 * setting is refused, never replaced by a default. Problems are the texts the node shows.
 */
export type SettingsRead<T> = { values: T; problems: [] } | { values: null; problems: string[] };

export function settingsOk<T>(values: T): SettingsRead<T> {
  return { values, problems: [] };
}

export function settingsRefused<T>(...problems: string[]): SettingsRead<T> {
  return { values: null, problems };
}

/** A field's value as text ('' when absent). */
export function fieldText(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}
