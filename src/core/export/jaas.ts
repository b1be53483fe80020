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

/** The JAAS line Kafka's Java clients need for a SASL user. */
export function jaasConfig(mechanism: string, username: string, password: string): string {
  const module = LOGIN_MODULES[mechanism.toLowerCase()] ?? LOGIN_MODULES.plain;
  return `${module} required username=${jaasQuote(username)} password=${jaasQuote(password)};`;
}

/** Reads username and password out of a JAAS line (the inverse of jaasConfig), when present. */
export function parseJaasConfig(text: string): { module?: string; username?: string; password?: string } {
  const out: { module?: string; username?: string; password?: string } = {};
  const m = /^\s*([A-Za-z0-9_.$]+)\s+(?:required|requisite|sufficient|optional)\b/.exec(text);
  if (m) out.module = m[1];
  const opt = /([A-Za-z_.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]+))/g;
  let r: RegExpExecArray | null;
  while ((r = opt.exec(text)) !== null) {
    const value = r[2] !== undefined ? r[2].replace(/\\(.)/g, '$1') : r[3];
    if (r[1] === 'username') out.username = value;
    else if (r[1] === 'password') out.password = value;
  }
  return out;
}
