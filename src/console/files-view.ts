import { ApiError, call, uploadFile } from './api.js';
import { clear, describeError, formatBytes, h } from './dom.js';
import { quoteIdent, tableNameOf } from './sql-text.js';

interface FileInfo {
  name: string;
  format: string;
  rows: number | null;
  columns: number;
  size_bytes: number;
  stored_as: string;
}

/** Files: drag-and-drop (or pick) upload with a progress bar, the list, delete. */
export class FilesView {
  readonly el: HTMLElement;
  private list = h('div', { class: 'list' });
  private uploads = h('div', { class: 'uploads', 'aria-live': 'polite' });

  constructor(
    private onChange: () => void,
    private query: (text: string) => void,
  ) {
    const picker = h('input', {
      type: 'file',
      id: 'file-pick',
      multiple: true,
      class: 'visually-hidden',
      onchange: () => this.take(picker.files),
    });
    const drop = h(
      'label',
      { class: 'drop', for: 'file-pick', tabindex: 0 },
      'Drop CSV, TSV, JSON, NDJSON, Parquet or XLSX files here, or press Enter to choose.',
    );
    drop.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        picker.click();
      }
    });
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      this.take(e.dataTransfer?.files ?? null);
    });
    this.el = h(
      'section',
      { class: 'panel' },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Files'),
        h('button', { type: 'button', onclick: () => this.refresh() }, 'Refresh'),
      ),
      drop,
      picker,
      this.uploads,
      this.list,
    );
  }

  private take(files: FileList | null): void {
    for (const f of files ? [...files] : []) void this.upload(f);
  }

  private async upload(file: File, replace = false): Promise<void> {
    const name = tableNameOf(file.name);
    const bar = h('progress', { max: 100, value: 0, 'aria-label': `Uploading ${file.name}` });
    const label = h('span', {}, `${file.name} → files.${name}`);
    const note = h('span', { class: 'muted' }, '0%');
    const row = h('div', { class: 'upload' }, label, bar, note);
    this.uploads.prepend(row);
    const up = uploadFile(name, file, replace, (sent, total) => {
      const pct = total ? Math.round((sent / total) * 100) : 0;
      bar.value = pct;
      note.textContent = `${pct}% of ${formatBytes(total)}`;
    });
    const cancel = h('button', { type: 'button', onclick: () => up.abort() }, 'Cancel');
    row.appendChild(cancel);
    try {
      await up.done;
      bar.value = 100;
      note.textContent = 'stored';
      cancel.remove();
      this.onChange();
      await this.refresh();
    } catch (e) {
      cancel.remove();
      row.appendChild(describeError(e));
      // The name is taken: offer to replace that table with this file (PUT ?replace=true).
      if (e instanceof ApiError && e.status === 409 && e.code === 'file_exists') {
        row.appendChild(
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () => {
                row.remove();
                void this.upload(file, true);
              },
            },
            `Replace files.${name}`,
          ),
        );
      }
    }
  }

  async refresh(): Promise<void> {
    try {
      const files = await call<FileInfo[]>('GET', '/api/files');
      if (files.length === 0) {
        clear(this.list, h('p', { class: 'muted' }, 'No files yet.'));
        return;
      }
      clear(
        this.list,
        h(
          'table',
          { class: 'table files' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Table', 'Format', 'Rows', 'Columns', 'Size', 'Stored as', ''].map((t) => h('th', {}, t)),
            ),
          ),
          h(
            'tbody',
            {},
            files.map((f) =>
              h(
                'tr',
                {},
                h('td', {}, `files.${f.name}`),
                h('td', {}, f.format),
                h('td', { class: 'right' }, f.rows === null ? 'counting…' : f.rows.toLocaleString()),
                h('td', { class: 'right' }, f.columns),
                h('td', { class: 'right' }, formatBytes(f.size_bytes)),
                h('td', {}, f.stored_as),
                h(
                  'td',
                  { class: 'actions' },
                  h(
                    'button',
                    {
                      type: 'button',
                      onclick: () => this.query(`SELECT * FROM files.${quoteIdent(f.name)} LIMIT 100;`),
                    },
                    'Query',
                  ),
                  h(
                    'button',
                    { type: 'button', class: 'danger', onclick: () => this.remove(f.name) },
                    'Delete',
                  ),
                ),
              ),
            ),
          ),
        ),
      );
    } catch (e) {
      clear(this.list, describeError(e));
    }
  }

  private async remove(name: string): Promise<void> {
    if (!window.confirm(`Delete the file table 'files.${name}'?`)) return;
    try {
      await call('DELETE', `/api/files/${encodeURIComponent(name)}`);
      this.onChange();
      await this.refresh();
    } catch (e) {
      this.list.prepend(describeError(e));
    }
  }
}
