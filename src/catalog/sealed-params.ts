import { openJson, SecretBoxError, sealJson, secretAad } from './secret-box.js';

/** How a secret parameter is stored: `{ "$secret": "v1:..." }` in place of its value. */
export interface SealedValue {
  $secret: string;
}

/** A stored secret cannot be decrypted (key changed or catalog altered). Names the source and parameter, never the value. */
export class CatalogSecretError extends Error {
  override name = 'CatalogSecretError';
}

function isSealed(v: unknown): v is SealedValue {
  return typeof v === 'object' && v !== null && typeof (v as SealedValue).$secret === 'string';
}

/**
 * Replace the named secret parameters by their sealed form. Returns the stored params
 * and the names actually sealed (absent or null secrets have nothing to hide), which are
 * stored with the record so reads know what to open.
 */
export function sealParams(
  key: Buffer,
  sourceId: string,
  params: Record<string, unknown>,
  secretNames: readonly string[],
): { params: Record<string, unknown>; secrets: string[] } {
  const out: Record<string, unknown> = { ...params };
  const sealed: string[] = [];
  for (const name of new Set(secretNames)) {
    const v = out[name];
    if (v === undefined || v === null) continue;
    out[name] = { $secret: sealJson(key, secretAad(sourceId, name), v) } satisfies SealedValue;
    sealed.push(name);
  }
  return { params: out, secrets: sealed };
}

/**
 * For a record stored before some of its engine's parameters became secret: seal those
 * that are still in the clear. Null when there is nothing to seal.
 */
export function sealMissing(
  key: Buffer,
  sourceId: string,
  stored: Record<string, unknown>,
  storedSecrets: readonly string[],
  secretNames: readonly string[],
): { params: Record<string, unknown>; secrets: string[] } | null {
  const missing = secretNames.filter(
    (n) =>
      !storedSecrets.includes(n) && stored[n] !== undefined && stored[n] !== null && !isSealed(stored[n]),
  );
  if (missing.length === 0) return null;
  const sealed = sealParams(key, sourceId, stored, missing);
  return { params: sealed.params, secrets: [...storedSecrets, ...sealed.secrets] };
}

export function openParams(
  key: Buffer,
  source: { id: string; name: string },
  stored: Record<string, unknown>,
  secretNames: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const name of secretNames) {
    const v = out[name];
    if (!isSealed(v)) continue;
    try {
      out[name] = openJson(key, secretAad(source.id, name), v.$secret);
    } catch (e) {
      if (!(e instanceof SecretBoxError) && !(e instanceof SyntaxError)) throw e;
      throw new CatalogSecretError(
        `Cannot decrypt secret parameter '${name}' of source '${source.name}': the secret key ` +
          '(TRIBUTARY_SECRET_KEY, TRIBUTARY_SECRET_KEY_FILE or secret.key in the storage dir) differs from the one it was stored with, or the catalog was altered',
      );
    }
  }
  return out;
}

/** The models of a knowledge base whose `api_key` is a secret. */
const KB_MODELS = ['embedding_model', 'reranking_model'] as const;

/** A knowledge base's params as stored: each model's `api_key` sealed in place. */
export function sealKbParams(
  key: Buffer,
  kbId: string,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...params };
  for (const m of KB_MODELS) {
    const model = params[m];
    if (!model || typeof model !== 'object') continue;
    // The embedding model's key keeps the AAD it always had; the reranker's is bound to its own name.
    const aadId = m === 'embedding_model' ? kbId : `${kbId}:${m}`;
    out[m] = sealParams(key, aadId, model as Record<string, unknown>, ['api_key']).params;
  }
  return out;
}

export function openKbParams(
  key: Buffer,
  kb: { id: string; name: string },
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...stored };
  for (const m of KB_MODELS) {
    const model = stored[m];
    if (!model || typeof model !== 'object') continue;
    const who = m === 'embedding_model' ? kb : { id: `${kb.id}:${m}`, name: `${kb.name} (${m})` };
    out[m] = openParams(key, who, model as Record<string, unknown>, ['api_key']);
  }
  return out;
}
