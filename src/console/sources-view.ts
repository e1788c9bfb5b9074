import { call, rows, sql } from './api.js';
import { clear, describeError, errorBox, h } from './dom.js';
import { createSourceSql, type EngineParam, parseEngineParams } from './engine-params.js';
import { quoteIdent } from './sql-text.js';

interface SourceInfo {
  name: string;
  engine: string | null;
}
interface TestAnswer {
  ok: boolean;
  latency_ms?: number;
  /** Passthrough test only. */
  status_code?: number;
  host?: string;
  error_code?: number | string;
  message?: string;
}

/** Sources: the list with engine and status, a create form built from SHOW ENGINES, test, drop, passthrough. */
export class SourcesView {
  readonly el: HTMLElement;
  private list = h('div', { class: 'list' });
  private form = h('div', { class: 'card' });
  private tryIt = h('div');
  private engines: { engine: string; description: string; params: EngineParam[] }[] = [];

  constructor(private onChange: () => void) {
    this.el = h(
      'section',
      { class: 'panel' },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Sources'),
        h('button', { type: 'button', onclick: () => this.refresh() }, 'Refresh'),
      ),
      this.list,
      this.tryIt,
      h('h3', {}, 'New source'),
      this.form,
    );
  }

  async refresh(): Promise<void> {
    clear(this.list, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const sources = await call<SourceInfo[]>('GET', '/api/sources');
      this.renderList(sources);
    } catch (e) {
      clear(this.list, describeError(e));
    }
    if (this.engines.length === 0) await this.loadEngines();
  }

  private renderList(sources: SourceInfo[]): void {
    const table = h(
      'table',
      { class: 'table' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Engine'), h('th', {}, 'Status'), h('th', {}, '')),
      ),
      h(
        'tbody',
        {},
        sources.map((s) => {
          const status = h('td', { class: 'muted' }, '—');
          const test = async () => {
            clear(status, 'testing…');
            try {
              // The server tries a rest_api source as the passthrough does (its test_path, the
              // upstream's status and host), any other with a connection test.
              const r = await call<TestAnswer>('POST', `/api/sources/${encodeURIComponent(s.name)}/test`);
              clear(
                status,
                r.ok
                  ? h(
                      'span',
                      { class: 'good' },
                      r.status_code === undefined
                        ? `ok (${r.latency_ms} ms)`
                        : `ok: HTTP ${r.status_code} from ${r.host} (${r.latency_ms} ms)`,
                    )
                  : errorBox(r.error_code ?? 'error', r.message ?? 'failed'),
              );
            } catch (e) {
              clear(status, describeError(e));
            }
          };
          const builtin = s.name === 'files';
          return h(
            'tr',
            {},
            h('td', {}, s.name),
            h('td', {}, s.engine ?? '?'),
            status,
            h(
              'td',
              { class: 'actions' },
              h('button', { type: 'button', onclick: test }, 'Test'),
              s.engine === 'rest_api'
                ? h('button', { type: 'button', onclick: () => this.showTryIt(s.name) }, 'Try it')
                : null,
              builtin
                ? null
                : h('button', { type: 'button', class: 'danger', onclick: () => this.drop(s.name) }, 'Drop'),
            ),
          );
        }),
      ),
    );
    clear(this.list, table);
  }

  private async drop(name: string): Promise<void> {
    if (
      !window.confirm(
        `Drop the source '${name}'? Its connection settings are removed (the data at the source is not touched).`,
      )
    )
      return;
    try {
      const r = await sql(`DROP DATABASE ${quoteIdent(name)}`);
      if (r.type === 'error') {
        this.list.prepend(errorBox(r.error_code, r.error_message));
        return;
      }
    } catch (e) {
      this.list.prepend(describeError(e));
      return;
    }
    this.onChange();
    await this.refresh();
  }

  private async loadEngines(): Promise<void> {
    try {
      const r = await rows('SHOW ENGINES');
      this.engines = r.data
        .map((row) => ({
          engine: String(row[0]),
          description: String(row[1] ?? ''),
          params: parseEngineParams(String(row[2] ?? '')),
        }))
        .filter((e) => e.engine !== 'files');
    } catch (e) {
      clear(this.form, describeError(e));
      return;
    }
    this.renderForm(this.engines.find((e) => e.engine === 'postgres')?.engine ?? this.engines[0]?.engine);
  }

  private renderForm(engineName: string | undefined): void {
    const engine = this.engines.find((e) => e.engine === engineName);
    const select = h(
      'select',
      { id: 'src-engine', onchange: () => this.renderForm(select.value) },
      this.engines.map((e) => h('option', { value: e.engine, selected: e.engine === engineName }, e.engine)),
    );
    const name = h('input', {
      id: 'src-name',
      required: true,
      autocomplete: 'off',
      pattern: '[A-Za-z_][A-Za-z0-9_]*',
      placeholder: 'e.g. pg',
    });
    const inputs = new Map<string, HTMLInputElement>();
    const fields = (engine?.params ?? []).map((p) => {
      const id = `src-p-${p.name}`;
      const input = h('input', {
        id,
        name: p.name,
        type: p.secret ? 'password' : 'text',
        autocomplete: p.secret ? 'new-password' : 'off',
        placeholder: p.defaultText ?? (p.required ? 'required' : ''),
        required: p.required,
      });
      inputs.set(p.name, input);
      return h(
        'div',
        { class: 'field' },
        h('label', { for: id }, p.name, p.required ? ' *' : ''),
        input,
        h('small', { class: 'muted' }, p.doc),
      );
    });
    const out = h('div', { 'aria-live': 'polite' });
    const submit = async (e: Event) => {
      e.preventDefault();
      const values = Object.fromEntries([...inputs].map(([k, el]) => [k, el.value]));
      let text: string;
      try {
        text = createSourceSql(name.value, engine?.engine ?? '', engine?.params ?? [], values);
      } catch (err) {
        clear(out, errorBox('invalid', (err as Error).message));
        return;
      }
      clear(out, h('p', { class: 'muted' }, 'Connecting…'));
      try {
        const r = await sql(text);
        if (r.type === 'error') {
          clear(out, errorBox(r.error_code, r.error_message));
          return;
        }
        clear(out, h('p', { class: 'good' }, `Source '${name.value}' created.`));
        for (const el of inputs.values()) el.value = '';
        name.value = '';
        this.onChange();
        await this.refresh();
      } catch (err) {
        clear(out, describeError(err));
      }
    };
    clear(
      this.form,
      h(
        'form',
        { class: 'form', onsubmit: submit },
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'src-engine' }, 'Engine'),
          select,
          h('small', { class: 'muted' }, engine?.description ?? ''),
        ),
        h('div', { class: 'field' }, h('label', { for: 'src-name' }, 'Name *'), name),
        fields,
        h('div', { class: 'field' }, h('button', { type: 'submit', class: 'primary' }, 'Create and test')),
        out,
      ),
    );
  }

  /** The passthrough "try it" panel of a rest_api source (POST /api/integrations/{name}/passthrough). */
  private showTryIt(source: string): void {
    const method = h(
      'select',
      { id: 'pt-method' },
      ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => h('option', {}, m)),
    );
    const path = h('input', { id: 'pt-path', value: '/', autocomplete: 'off' });
    const body = h('textarea', { id: 'pt-body', rows: 4, placeholder: 'JSON body (optional)' });
    const out = h('div', { 'aria-live': 'polite' });
    const send = async (e: Event) => {
      e.preventDefault();
      let payload: unknown;
      if (body.value.trim()) {
        try {
          payload = JSON.parse(body.value);
        } catch {
          payload = body.value;
        }
      }
      clear(out, h('p', { class: 'muted' }, 'Calling…'));
      try {
        const r = await call<{ status_code: number; body: unknown; content_type?: string }>(
          'POST',
          `/api/integrations/${encodeURIComponent(source)}/passthrough`,
          { method: method.value, path: path.value, ...(payload === undefined ? {} : { body: payload }) },
        );
        clear(
          out,
          h('p', {}, `HTTP ${r.status_code} ${r.content_type ?? ''}`),
          h('pre', { class: 'code' }, typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2)),
        );
      } catch (err) {
        clear(out, describeError(err));
      }
    };
    clear(
      this.tryIt,
      h(
        'div',
        { class: 'card' },
        h('h3', {}, `Try ${source}`),
        h(
          'form',
          { class: 'form inline', onsubmit: send },
          h('label', { for: 'pt-method' }, 'Method'),
          method,
          h('label', { for: 'pt-path' }, 'Path'),
          path,
          body,
          h('button', { type: 'submit', class: 'primary' }, 'Send'),
          h('button', { type: 'button', onclick: () => clear(this.tryIt) }, 'Close'),
        ),
        out,
      ),
    );
  }
}
