import type { KbMeter } from '../meter.js';
import type { EmbeddingProvider } from './provider.js';

/** A provider whose every request is counted (calls, texts, errors by provider) for GET /metrics. */
export function metered(p: EmbeddingProvider, meter: KbMeter | undefined): EmbeddingProvider {
  if (!meter) return p;
  return {
    provider: p.provider,
    model: p.model,
    async embed(texts, signal) {
      try {
        const out = await p.embed(texts, signal);
        meter.embedding(p.provider, texts.length, false);
        return out;
      } catch (e) {
        meter.embedding(p.provider, texts.length, true);
        throw e;
      }
    },
  };
}
