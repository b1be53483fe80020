/**
 * The OAUTHBEARER fields of a cluster (client-credentials flow): what a token endpoint URL, a
 * scope and SASL extensions may be, as Kafka's Java client checks them (extension keys and values:
 * OAuthBearerClientInitialResponse; scope: RFC 6749 3.3). The runtime (kafka/client) and the
 * editor (the build lays `oauthFieldProblem` into the cluster dialog) check with this one function.
 */

/** An OAUTHBEARER field with rules; `clientId` and `clientSecret` only need a value. */
export type OAuthField = 'tokenEndpointUrl' | 'clientId' | 'clientSecret' | 'scope' | 'extensions';

/**
 * Why `value` is not a valid `field`, or undefined when it is: `required` (empty), `url` (not an
 * http(s) URL), `scope` (a character RFC 6749 does not allow in a scope), `extension-pair` (an
 * entry that is not key=value), `extension-key` (a key of other than letters), `extension-reserved`
 * (the key `auth`, which the SASL message uses itself), `extension-value` (a value with control
 * characters, or empty). Extensions are `key=value` entries separated by commas or new lines; empty
 * scope and extensions are fine. Self-contained: the build copies it into the editor as it is.
 */
export function oauthFieldProblem(field: string, value: string): string | undefined {
  const v = value === undefined || value === null ? '' : String(value).trim();
  if (field === 'tokenEndpointUrl') {
    if (v === '') return 'required';
    if (/\$\{\w+\}/.test(v)) return undefined;
    // an absolute http(s) URL with a host: scheme://host[:port][/path][?query]
    return /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%-]+)(:\d{1,5})?(\/[^\s#]*)?(\?[^\s#]*)?$/.test(v) ? undefined : 'url';
  }
  if (field === 'clientId' || field === 'clientSecret') return v === '' ? 'required' : undefined;
  if (field === 'scope') {
    if (v === '' || /\$\{\w+\}/.test(v)) return undefined;
    return /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(v) ? undefined : 'scope';
  }
  if (field === 'extensions') {
    const entries = v.split(/[,\n]/).map((e) => e.trim()).filter((e) => e !== '');
    for (const e of entries) {
      const eq = e.indexOf('=');
      if (eq <= 0) return 'extension-pair';
      const key = e.slice(0, eq).trim();
      const val = e.slice(eq + 1).trim();
      if (/\$\{\w+\}/.test(key) || /\$\{\w+\}/.test(val)) continue;
      if (!/^[A-Za-z]+$/.test(key)) return 'extension-key';
      if (key === 'auth') return 'extension-reserved';
      if (!/^[\x21-\x7E \t]+$/.test(val)) return 'extension-value';
    }
    return undefined;
  }
  return undefined;
}

/** SASL extensions written as `key=value` entries (commas or new lines between), as an object; checked with oauthFieldProblem first. */
export function parseSaslExtensions(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of String(text ?? '').split(/[,\n]/)) {
    const eq = e.indexOf('=');
    if (eq <= 0) continue;
    out[e.slice(0, eq).trim()] = e.slice(eq + 1).trim();
  }
  return out;
}

/** The words for a problem of oauthFieldProblem, naming the field and the fix (runtime messages). */
export function oauthFieldText(field: OAuthField, value: string, problem: string): string {
  const label: Record<OAuthField, string> = {
    tokenEndpointUrl: 'OAUTHBEARER token endpoint URL',
    clientId: 'OAUTHBEARER client id',
    clientSecret: 'OAUTHBEARER client secret',
    scope: 'OAUTHBEARER scope',
    extensions: 'OAUTHBEARER SASL extensions',
  };
  const name = label[field];
  switch (problem) {
    case 'required':
      return field === 'clientSecret'
        ? `${name} is empty: enter the secret of the OAuth client in the cluster node (it is kept in Node-RED's credentials)`
        : `${name} is empty: give the ${field === 'clientId' ? "OAuth client's id" : "identity provider's token URL, e.g. https://idp.example.com/oauth2/token"}`;
    case 'url':
      return `${name} '${value}' is not an http(s) URL: give the identity provider's token URL, e.g. https://idp.example.com/oauth2/token`;
    case 'scope':
      return `${name} '${value}' has a character a scope cannot hold: give scope names separated by single spaces (no quotes or backslashes)`;
    case 'extension-pair':
      return `${name} '${value}': write key=value entries separated by commas, e.g. logicalCluster=lkc-abc, identityPoolId=pool-123`;
    case 'extension-key':
      return `${name} '${value}': a key is letters only (a-z, A-Z)`;
    case 'extension-reserved':
      return `${name} '${value}': the key 'auth' is reserved by the SASL message; choose another key`;
    case 'extension-value':
      return `${name} '${value}': a value is printable ASCII and not empty`;
    default:
      return `${name} '${value}' is not valid`;
  }
}
