import { rows } from './api.js';
import { clear, describeError, h } from './dom.js';
import { renderGrid } from './grid.js';
import { quoteIdent, quoteString } from './sql-text.js';

/**
 * Knowledge bases: the list (SHOW KNOWLEDGE_BASES), a search box that shows relevance, and
 * templates for CREATE and INSERT put in the editor. A server without knowledge bases
 * answers SHOW KNOWLEDGE_BASES with an error, which is shown as such.
 */
export class KbView {
  readonly el: HTMLElement;
  private list = h('div', { class: 'list' });
  private found = h('div', { 'aria-live': 'polite' });
  private kbSelect = h('select', { id: 'kb-name', 'aria-label': 'Knowledge base' });

  constructor(private edit: (text: string) => void) {
    const question = h('input', {
      id: 'kb-q',
      type: 'search',
      placeholder: 'Ask a question…',
      autocomplete: 'off',
    });
    const search = async (e: Event) => {
      e.preventDefault();
      if (!this.kbSelect.value || !question.value.trim()) return;
      clear(this.found, h('p', { class: 'muted' }, 'Searching…'));
      try {
        const r = await rows(
          `SELECT chunk_content, relevance, id FROM ${quoteIdent(this.kbSelect.value)} WHERE content = ${quoteString(question.value)} LIMIT 10`,
        );
        clear(this.found, renderGrid(r.column_names, r.data, r.column_types));
      } catch (err) {
        clear(this.found, describeError(err));
      }
    };
    this.el = h(
      'section',
      { class: 'panel' },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Knowledge bases'),
        h('button', { type: 'button', onclick: () => this.refresh() }, 'Refresh'),
        h(
          'button',
          {
            type: 'button',
            onclick: () =>
              this.edit(
                'CREATE KNOWLEDGE_BASE my_kb USING embedding_model = {"provider": "builtin"}, content_columns = [\'content\'], metadata_columns = [];\n' +
                  'INSERT INTO my_kb SELECT id, content FROM files.my_table;',
              ),
          },
          'Create / insert (in a new editor tab)',
        ),
      ),
      this.list,
      h(
        'form',
        { class: 'form inline', onsubmit: search },
        h('label', { for: 'kb-name' }, 'Knowledge base'),
        this.kbSelect,
        h('label', { for: 'kb-q' }, 'Question'),
        question,
        h('button', { type: 'submit', class: 'primary' }, 'Search'),
      ),
      this.found,
    );
  }

  async refresh(): Promise<void> {
    try {
      const r = await rows('SHOW KNOWLEDGE_BASES');
      const names = r.data.map((row) => String(row[0]));
      clear(
        this.kbSelect,
        names.map((n) => h('option', { value: n }, n)),
      );
      clear(
        this.list,
        names.length
          ? renderGrid(r.column_names, r.data)
          : h('p', { class: 'muted' }, 'No knowledge bases yet.'),
      );
    } catch (e) {
      clear(this.list, h('p', { class: 'muted' }, 'Knowledge bases could not be listed:'), describeError(e));
    }
  }
}
