/**
 * List settings as Kafka 4.2+ checks them (KIP-1161). Every list property MirrorMaker 2 reads
 * (`topics`, `topics.exclude`, `groups`, `groups.exclude`, `config.properties.exclude`,
 * `metric.reporters`, and the clients' `bootstrap.servers`, `ssl.enabled.protocols`) is defined
 * with `ConfigDef.ValidList.anyNonDuplicateValues(true, false)`: Kafka splits the trimmed text
 * on commas (with the spaces around them), keeps the empty items, and refuses the connector with
 * "Configuration '<name>' values must not be duplicated." or "... values must not be empty.".
 * An empty value (`""`) is an empty list and stays allowed. Kafka up to 4.1 dropped the empty
 * items and kept the duplicates, so a value that worked on an older MM2 is refused by a newer
 * one: we refuse it everywhere (the nodes, the paste/import, the export), naming the item.
 */

/** The items of a list value as Kafka 4.2+ splits it: empty items kept, each trimmed. */
export function listItemsAsGiven(value: string | readonly unknown[]): string[] {
  if (Array.isArray(value)) return value.map((v) => String(v).trim());
  const text = String(value).trim();
  if (text === '') return [];
  return text.split(',').map((s) => s.trim());
}

/**
 * Why Kafka 4.2+ refuses a list value (duplicate or empty items), naming the items and the fix;
 * undefined when it accepts it. `value` is the text as given (or an array of items).
 */
export function listItemsProblem(value: string | readonly unknown[]): string | undefined {
  const items = listItemsAsGiven(value);
  const reasons: string[] = [];
  const counts = new Map<string, number>();
  for (const item of items) if (item !== '') counts.set(item, (counts.get(item) ?? 0) + 1);
  const repeated = [...counts].filter(([, n]) => n > 1);
  if (repeated.length > 0) {
    const named = repeated.map(([item, n]) => `'${item}' is listed ${n} times`).join(', ');
    reasons.push(`values must not be duplicated: ${named}; list each item once (MirrorMaker 2 refuses duplicates from Kafka 4.2)`);
  }
  const empty = items.flatMap((item, k) => (item === '' ? [k + 1] : []));
  if (empty.length > 0) {
    const which = empty.length === 1 ? `item ${empty[0]} of ${items.length} is` : `items ${empty.join(', ')} of ${items.length} are`;
    reasons.push(`values must not be empty: ${which} empty (a doubled, leading or trailing comma); remove the extra comma${empty.length > 1 ? 's' : ''} (MirrorMaker 2 refuses empty items from Kafka 4.2)`);
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}
