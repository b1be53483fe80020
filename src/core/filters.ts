import { ConfigError } from './errors';
import { compileRegexList, PrefixMatcher, NameMatcher } from './java-regex-list';

/**
 * MM2's DefaultGroupFilter and DefaultTopicFilter.
 *
 * accept(name) = include list fully matches name AND exclude list does not.
 * Each property is a comma-separated list (or an array) of Java regexes. An absent property
 * (undefined or null) takes MM2's default; a present but empty one ("" or []) is an empty
 * list, which matches nothing (so `topics=""` accepts nothing and `groups.exclude=""`
 * excludes nothing).
 */

export const GROUPS = 'groups';
export const GROUPS_EXCLUDE = 'groups.exclude';
export const TOPICS = 'topics';
export const TOPICS_EXCLUDE = 'topics.exclude';

export const DEFAULT_GROUPS = '.*';
export const DEFAULT_GROUPS_EXCLUDE = 'console-consumer-.*, connect-.*, __.*';
export const DEFAULT_TOPICS = '.*';
export const DEFAULT_TOPICS_EXCLUDE = '.*[\\-\\.]internal, .*\\.replica, __.*';

export interface NameFilter {
  accept(name: string): boolean;
}
export type GroupFilter = NameFilter;
export type TopicFilter = NameFilter;

export type ListValue = string | readonly string[];

export interface GroupFilterProps {
  groups?: ListValue | null;
  'groups.exclude'?: ListValue | null;
  [key: string]: unknown;
}

export interface TopicFilterProps {
  topics?: ListValue | null;
  'topics.exclude'?: ListValue | null;
  [key: string]: unknown;
}

function listProperty(props: Record<string, unknown>, property: string, fallback: string): ListValue {
  const value = props[property];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new ConfigError('expected a comma-separated string or an array of strings', property);
}

function compile(props: Record<string, unknown>, property: string, fallback: string): NameMatcher | null {
  return compileRegexList(listProperty(props, property, fallback), property);
}

function buildFilter(
  props: Record<string, unknown> | null | undefined,
  includeProp: string,
  includeDefault: string,
  excludeProp: string,
  excludeDefault: string,
): NameFilter {
  const p = (props ?? {}) as Record<string, unknown>;
  const include = compile(p, includeProp, includeDefault);
  const exclude = compile(p, excludeProp, excludeDefault);
  // the answer for a name never changes: kept, so that a name asked about every cycle (10,000
  // groups, their topics, every second) is matched once; the memo is emptied when it fills up
  const memo = new Map<string, boolean>();
  // lists of literal prefixes (MM2's default groups and exclusions) are matched at once: no memo of every name
  const cheap = (m: NameMatcher | null): boolean => m === null || m instanceof PrefixMatcher;
  if (cheap(include) && cheap(exclude))
    return {
      accept(name: string): boolean {
        if (typeof name !== 'string') return false;
        return include !== null && include.test(name) && !(exclude !== null && exclude.test(name));
      },
    };
  return {
    accept(name: string): boolean {
      if (typeof name !== 'string') return false;
      const known = memo.get(name);
      if (known !== undefined) return known;
      const included = include !== null && include.test(name);
      const answer = included && !(exclude !== null && exclude.test(name));
      if (memo.size >= MEMO_MAX) memo.clear();
      memo.set(name, answer);
      return answer;
    },
  };
}

/** Names whose answer a filter keeps (about 100 bytes each, with the name). */
const MEMO_MAX = 200000;

/** DefaultGroupFilter from `groups` / `groups.exclude`. Throws ConfigError naming the property for a bad value or regex. */
export function createGroupFilter(props: GroupFilterProps | Record<string, unknown> = {}): GroupFilter {
  return buildFilter(props, GROUPS, DEFAULT_GROUPS, GROUPS_EXCLUDE, DEFAULT_GROUPS_EXCLUDE);
}

/** DefaultTopicFilter from `topics` / `topics.exclude`. Throws ConfigError naming the property for a bad value or regex. */
export function createTopicFilter(props: TopicFilterProps | Record<string, unknown> = {}): TopicFilter {
  return buildFilter(props, TOPICS, DEFAULT_TOPICS, TOPICS_EXCLUDE, DEFAULT_TOPICS_EXCLUDE);
}
