/**
 * Message lookup for runtime texts (status, log, errors). Uses Node-RED's i18n (the user's
 * language), and falls back to our en-US catalog when the runtime has no catalog loaded for
 * the node set (as in node-red-node-test-helper, whose RED._ returns the key).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { NodeAPI } from './red';

export type Translate = (key: string, subs?: Record<string, unknown>) => string;

const cache = new Map<string, Record<string, unknown>>();

function catalog(set: string): Record<string, unknown> {
  let c = cache.get(set);
  if (!c) {
    try {
      c = JSON.parse(fs.readFileSync(path.join(__dirname, '..', set, 'locales', 'en-US', `${set}.json`), 'utf8')) as Record<string, unknown>;
    } catch {
      c = {};
    }
    cache.set(set, c);
  }
  return c;
}

function lookup(set: string, key: string): unknown {
  let cur: unknown = catalog(set);
  for (const part of key.split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
  return cur;
}

const EN_PLURAL = new Intl.PluralRules('en-US');

export function makeTranslate(RED: NodeAPI, set: string): Translate {
  return (key, subs) => {
    const r = RED._(key, subs);
    if (r !== key) return r;
    // i18next's plurals: with a numeric `count`, `key_one` / `key_other` (en-US) before `key`
    const count = subs?.count;
    let cur: unknown = typeof count === 'number' ? lookup(set, `${key}_${EN_PLURAL.select(count)}`) : undefined;
    if (typeof cur !== 'string') cur = lookup(set, key);
    if (typeof cur !== 'string') return key;
    return cur.replace(/__(\w+)__/g, (_m, name: string) => (subs && name in subs ? String(subs[name]) : `__${name}__`));
  };
}

/** `3 groups`, `1 group` (en-US), `3 个群组` (zh-CN): a counted noun of mm2-common.count, plural as the language has it. */
export function counted(t: Translate, what: 'groups' | 'partitions' | 'syncs', count: number): string {
  return t(`mm2-common.count.${what}`, { count });
}
