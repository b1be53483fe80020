/**
 * The reasons of pasted-config keys whose fix is in Node-RED (core/pasted-configs gives them a
 * code, this words them with the names the editor shows), and the placeholder check named for
 * Node-RED.
 */
import { placeholderReason, type IgnoredKey } from '../core/pasted-configs';
import type { EnvLookup } from '../core/env-substitution';

const CODE_REASONS: Record<NonNullable<IgnoredKey['code']>, (detail: string) => string> = {
  'config-provider': () => 'a config provider of MM2\'s workers: Node-RED resolves no ${provider:...} references',
  'ca-secret': () => 'Kubernetes Secrets: give the CA file in the mm2-cluster node\'s TLS settings',
  'user-name': (d) => `'${d}': enter the user name in the mm2-cluster node's credentials`,
  'password-secret': () => 'a Kubernetes Secret: enter the password in the mm2-cluster node\'s credentials',
  'client-cert-secret': () => 'a client certificate from a Kubernetes Secret: give its certificate and key files in the mm2-cluster node\'s TLS settings',
  'auth-type': (d) => `authentication type '${d}' has no equivalent here (the mm2-cluster node supports PLAIN, SCRAM and TLS client certificates)`,
};

/** The ignored keys as the editor shows them: `{key, reason}`, the coded ones worded for Node-RED. */
export function wordIgnored(ignored: readonly IgnoredKey[]): IgnoredKey[] {
  return ignored.map((i) => ({ key: i.key, reason: i.code ? CODE_REASONS[i.code](i.detail ?? '') : i.reason }));
}

/** core's placeholderReason, the reader named: Node-RED. */
export function pastedValueReason(value: unknown, lookup?: EnvLookup, property = ''): string | undefined {
  return placeholderReason(value, lookup, property, 'Node-RED');
}
