import { closeCompletion } from '@codemirror/autocomplete';
import { MySQL, sql } from '@codemirror/lang-sql';
import { setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import type { SchemaTree } from './completion.js';
import { type Statement, splitStatements } from './statements.js';

export interface EditorKeys {
  /** Ctrl/Cmd+Enter: the selection, else the statement at the cursor. */
  runCurrent(): void;
  /** Ctrl/Cmd+Shift+Enter: the selection, else every statement. */
  runAll(): void;
  /** Esc: true when it cancelled something (then the key goes no further). */
  cancel(): boolean;
  /** The text changed (for saving tabs). */
  changed(): void;
}

export interface Editor {
  view: EditorView;
  text(): string;
  /** The selection, or every statement, with offsets into the document. */
  runnable(all: boolean): Statement[];
  /** Replaces the document (a new or switched tab): its own undo history. */
  load(text: string, cursor?: number): void;
  /** Inserts at the cursor, on its own line when the cursor is inside other text. */
  insert(text: string): void;
  setSchema(tree: SchemaTree, defaultSchema?: string): void;
  /** Marks [from, to) of the document as the error, or clears the marks (null). */
  markError(span: { from: number; to: number; message: string } | null): void;
  cursor(): number;
}

/** CodeMirror 6 with MySQL highlighting, completion from the sources' schema and run/cancel keys. */
export function createEditor(parent: HTMLElement, initial: string, keys: EditorKeys): Editor {
  const language = new Compartment();
  let schema: { tree: SchemaTree; defaultSchema?: string } = { tree: {} };
  const lang = () =>
    sql({
      dialect: MySQL,
      schema: schema.tree,
      defaultSchema: schema.defaultSchema,
      upperCaseKeywords: true,
    });
  const run = (fn: () => void) => (v: EditorView) => {
    closeCompletion(v);
    fn();
    return true;
  };
  const extensions = () => [
    // Above basicSetup's own Mod-Enter (insert a blank line) and Escape (close completion).
    Prec.highest(
      keymap.of([
        { key: 'Mod-Enter', run: run(keys.runCurrent) },
        { key: 'Mod-Shift-Enter', run: run(keys.runAll) },
        { key: 'Escape', run: () => keys.cancel() },
      ]),
    ),
    basicSetup,
    language.of(lang()),
    placeholder('SELECT * FROM files.my_table LIMIT 10   — Ctrl+Enter runs the statement at the cursor'),
    EditorView.lineWrapping,
    EditorView.updateListener.of((u) => {
      if (u.docChanged) {
        keys.changed();
        // An edit makes an old error mark wrong.
        if (u.transactions.some((t) => t.isUserEvent('input') || t.isUserEvent('delete')))
          u.view.dispatch(setDiagnostics(u.state, []));
      }
    }),
    EditorView.theme({
      '&': { height: '100%' },
      // CodeMirror draws the squiggle as a data: image, which the page's CSP (img-src) refuses.
      '.cm-lintRange-error': {
        backgroundImage: 'none',
        textDecoration: 'underline wavy #b91c1c',
        textDecorationSkipInk: 'none',
        backgroundColor: '#fee2e2',
      },
      '.cm-scroller': {
        fontFamily: 'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace',
        fontSize: '13px',
      },
    }),
    EditorView.contentAttributes.of({ 'aria-label': 'SQL editor' }),
  ];
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
    state: EditorState.create({ doc: initial, extensions: extensions() }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    runnable(all) {
      const sel = view.state.selection.main;
      const doc = view.state.doc.toString();
      if (!sel.empty) {
        return splitStatements(doc.slice(sel.from, sel.to)).map((s) => ({
          ...s,
          from: s.from + sel.from,
          to: s.to + sel.from,
        }));
      }
      const parts = splitStatements(doc);
      if (all) return parts;
      const at = sel.head;
      // The statement the cursor is in, or the one just before it (cursor after its `;`).
      const inside = parts.find((p) => at >= p.from && at <= p.to + 1);
      const before = [...parts].reverse().find((p) => p.to <= at);
      const pick = inside ?? before ?? parts[0];
      return pick ? [pick] : [];
    },
    load(text, cursor) {
      view.setState(
        EditorState.create({
          doc: text,
          extensions: extensions(),
          selection: { anchor: Math.min(text.length, cursor ?? text.length) },
        }),
      );
    },
    insert(text) {
      const sel = view.state.selection.main;
      const doc = view.state.doc;
      const line = doc.lineAt(sel.from);
      const lead = line.text.trim() && sel.from > line.from ? '\n' : '';
      const tail = doc.sliceString(sel.to, doc.lineAt(sel.to).to).trim() ? '\n' : '';
      const insert = `${lead}${text}${tail}`;
      view.dispatch({
        changes: { from: sel.from, to: sel.to, insert },
        selection: { anchor: sel.from + lead.length + text.length },
        scrollIntoView: true,
      });
      view.focus();
    },
    setSchema(tree, defaultSchema) {
      schema = { tree, defaultSchema };
      view.dispatch({ effects: language.reconfigure(lang()) });
    },
    markError(span) {
      const len = view.state.doc.length;
      view.dispatch(
        setDiagnostics(
          view.state,
          span
            ? [
                {
                  from: Math.min(span.from, len),
                  to: Math.min(Math.max(span.to, span.from), len),
                  severity: 'error',
                  message: span.message,
                },
              ]
            : [],
        ),
      );
    },
    cursor: () => view.state.selection.main.head,
  };
}
