import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A reranking model of the tests' own on 127.0.0.1, speaking Cohere's `POST /rerank`
 * (`{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`, best first)
 * and TEI's (`{query, texts}` → `[{index, score}]`). Its scorer is simple but honest: the
 * share of the question's words (lower-cased, a few stopwords out, `-s`/`-ed`/`-ing` cut)
 * that the document holds, so it knows nothing of the labels and meets inflections.
 */
export interface RerankCall {
  path: string;
  auth: string | undefined;
  body: { model?: string; query: string; documents?: string[]; texts?: string[]; top_n?: number };
}

export class RerankServer {
  readonly calls: RerankCall[] = [];
  /** Answer shape for /rerank: Cohere's `results`, Voyage's `data`, or a bare array (TEI). */
  shape: 'results' | 'data' | 'bare' = 'results';
  /** Scores as raw logits (outside [0,1]) instead of shares. */
  logits = false;
  /** The next N requests fail with this status and body. */
  fail: { status: number; body: string; times: number } | null = null;
  url = '';
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      let s = '';
      for await (const c of req) s += c;
      const body = JSON.parse(s) as RerankCall['body'];
      this.calls.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      if (this.fail && this.fail.times > 0) {
        this.fail.times--;
        res.writeHead(this.fail.status, { 'content-type': 'application/json' });
        res.end(this.fail.body);
        return;
      }
      const docs = req.url?.startsWith('/tei/') ? body.texts : body.documents;
      if (!Array.isArray(docs) || typeof body.query !== 'string') {
        res.writeHead(422, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'query and documents (texts for TEI) are required' }));
        return;
      }
      const scored = docs
        .map((d, index) => {
          const share = overlap(body.query, d);
          return { index, score: this.logits ? 8 * (share - 0.5) : share };
        })
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, body.top_n ?? docs.length);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.startsWith('/tei/') || this.shape === 'bare') res.end(JSON.stringify(scored));
      else {
        const list = scored.map((x) => ({ index: x.index, relevance_score: x.score }));
        res.end(JSON.stringify(this.shape === 'data' ? { data: list } : { id: 'r1', results: list }));
      }
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): void {
    this.server?.close();
  }
}

const STOP = new Set(
  'a an and are as at be by do for from how i in is it of on or the this to was what when who with'.split(
    ' ',
  ),
);

function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []) {
    if (STOP.has(w)) continue;
    out.add(w.length > 5 ? w.replace(/(ing|ed|s)$/, '') : w);
  }
  return out;
}

/** Share of the question's words found in the document, in [0,1]. */
export function overlap(question: string, doc: string): number {
  const q = words(question);
  if (q.size === 0) return 0;
  const d = words(doc);
  let n = 0;
  for (const w of q) if (d.has(w)) n++;
  return n / q.size;
}
