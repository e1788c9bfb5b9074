import { closeCompletion } from '@codemirror/autocomplete';
import { MySQL, sql } from '@codemirror/lang-sql';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import type { SchemaTree } from './completion.js';

export interface Editor {
  view: EditorView;
  /** The selected text, or the whole text when nothing is selected. */
  runnableText(): string;
  setText(text: string): void;
  setSchema(tree: SchemaTree, defaultSchema?: string): void;
}

/** CodeMirror 6 with MySQL highlighting, completion from the sources' schema and Ctrl/Cmd+Enter to run. */
export function createEditor(parent: HTMLElement, initial: string, onRun: () => void): Editor {
  const language = new Compartment();
  const runKey = (v: EditorView) => {
    closeCompletion(v);
    onRun();
    return true;
  };
  const lang = (tree: SchemaTree, defaultSchema?: string) =>
    sql({ dialect: MySQL, schema: tree, defaultSchema, upperCaseKeywords: true });
  // CodeMirror injects its styles at run time. In a document that is a <style> element, which
  // the page's CSP (style-src 'self') refuses; in a shadow root it is a constructed style sheet,
  // which CSP allows. So the editor lives in a shadow root of its box.
  const shadow = parent.attachShadow({ mode: 'open' });
  const mount = document.createElement('div');
  mount.style.height = '100%';
  shadow.appendChild(mount);
  const view = new EditorView({
    parent: mount,
    root: shadow,
    state: EditorState.create({
      doc: initial,
      extensions: [
        // Above basicSetup's own Mod-Enter (insert a blank line).
        Prec.highest(keymap.of([{ key: 'Mod-Enter', run: runKey }])),
        basicSetup,
        language.of(lang({})),
        placeholder('SELECT * FROM files.my_table LIMIT 10   — Ctrl+Enter runs'),
        EditorView.lineWrapping,
        EditorView.theme({
          '&': { height: '100%' },
          '.cm-scroller': {
            fontFamily: 'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace',
            fontSize: '13px',
          },
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'SQL editor' }),
      ],
    }),
  });
  return {
    view,
    runnableText() {
      const sel = view.state.selection.main;
      return sel.empty ? view.state.doc.toString() : view.state.sliceDoc(sel.from, sel.to);
    },
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      view.focus();
    },
    setSchema(tree, defaultSchema) {
      view.dispatch({ effects: language.reconfigure(lang(tree, defaultSchema)) });
    },
  };
}
