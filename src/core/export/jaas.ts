/**
 * The JAAS line (`sasl.jaas.config`) of Kafka's Java clients for a SASL user, both ways.
 */

/** Java JAAS quoted string (StreamTokenizer rules): backslash and double quote escaped. */
function jaasQuote(s: string): string {
  return '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}

const LOGIN_MODULES: Record<string, string> = {
  plain: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  'scram-sha-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  'scram-sha-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
};

/** Kafka's login module and client login callback handler for OAUTHBEARER (both in Kafka 3.9.1 and 4.1.1). */
export const OAUTHBEARER_LOGIN_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';
export const OAUTHBEARER_LOGIN_CALLBACK_HANDLER = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler';

/**
 * The JAAS line of Kafka's Java clients for OAUTHBEARER with the client-credentials flow: the
 * client id and secret, the scope when given, one `extension_<key>` option per SASL extension.
 */
export function oauthJaasConfig(clientId: string, clientSecret: string, scope?: string, extensions?: Record<string, string>): string {
  const opts = [`clientId=${jaasQuote(clientId)}`, `clientSecret=${jaasQuote(clientSecret)}`];
  if (scope && scope.trim() !== '') opts.push(`scope=${jaasQuote(scope.trim())}`);
  for (const [k, v] of Object.entries(extensions ?? {})) opts.push(`extension_${k}=${jaasQuote(v)}`);
  return `${OAUTHBEARER_LOGIN_MODULE} required ${opts.join(' ')};`;
}

/** A JAAS line with its password and client secret shown as `<password>` / `<secret>` (the secrets file template). */
export function maskJaasSecrets(text: string): string {
  return text.replace(/\b(password|clientSecret)\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^\s;]+)/g, (_m, k: string) => `${k}="<${k === 'password' ? 'password' : 'secret'}>"`);
}

/** The JAAS line Kafka's Java clients need for a SASL user. */
export function jaasConfig(mechanism: string, username: string, password: string): string {
  const module = LOGIN_MODULES[mechanism.toLowerCase()] ?? LOGIN_MODULES.plain;
  return `${module} required username=${jaasQuote(username)} password=${jaasQuote(password)};`;
}

/** Reads username and password (OAUTHBEARER: client id, secret, scope, extensions) out of a JAAS line (the inverse of jaasConfig and oauthJaasConfig), when present. */
export function parseJaasConfig(text: string): { module?: string; username?: string; password?: string; clientId?: string; clientSecret?: string; scope?: string; extensions?: Record<string, string> } {
  const out: ReturnType<typeof parseJaasConfig> = {};
  const m = /^\s*([A-Za-z0-9_.$]+)\s+(?:required|requisite|sufficient|optional)\b/.exec(text);
  if (m) out.module = m[1];
  const opt = /([A-Za-z_.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))/g;
  let r: RegExpExecArray | null;
  while ((r = opt.exec(text)) !== null) {
    const value = r[2] !== undefined ? r[2].replace(/\\(.)/g, '$1') : r[3];
    if (r[1] === 'username') out.username = value;
    else if (r[1] === 'password') out.password = value;
    else if (r[1] === 'clientId') out.clientId = value;
    else if (r[1] === 'clientSecret') out.clientSecret = value;
    else if (r[1] === 'scope') out.scope = value;
    else if (r[1].startsWith('extension_')) (out.extensions ??= {})[r[1].slice('extension_'.length)] = value;
  }
  return out;
}
