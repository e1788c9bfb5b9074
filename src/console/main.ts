import './styles.css';
import { ApiError, call, setToken, whenUnauthorized } from './api.js';
import { clear, describeError, errorBox, h, tabIndexFor, tabKeys } from './dom.js';
import { FilesView } from './files-view.js';
import { KbView } from './kb-view.js';
import { clearHistory, QueryView } from './query-view.js';
import { SourcesView } from './sources-view.js';

interface Status {
  version: string;
  auth_mode: string;
}

const root = document.getElementById('app') as HTMLElement;

/**
 * The console (docs/reference/http.md#web-console). GET /api/status without a token tells the
 * auth mode: 200 means no auth, 401 means log in. The token is kept in api.ts's memory only,
 * so a reload asks again; a 401 later (expired, revoked) comes back here.
 */
async function start(message?: HTMLElement): Promise<void> {
  try {
    const status = await call<Status>('GET', '/api/status');
    showApp(status);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) showLogin(message);
    else clear(root, h('main', { class: 'login' }, h('h1', {}, 'Tributary'), describeError(e)));
  }
}

function showLogin(message?: HTMLElement): void {
  const user = h('input', { id: 'login-user', name: 'username', autocomplete: 'username', required: true });
  const pass = h('input', {
    id: 'login-pass',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const out = h('div', { 'aria-live': 'assertive' }, message ?? null);
  const submit = async (e: Event) => {
    e.preventDefault();
    clear(out, h('p', { class: 'muted' }, 'Signing in…'));
    try {
      const r = await call<{ token: string }>('POST', '/api/login', {
        username: user.value,
        password: pass.value,
      });
      setToken(r.token);
      pass.value = '';
      await start();
    } catch (err) {
      clear(out, describeError(err));
      pass.select();
    }
  };
  clear(
    root,
    h(
      'main',
      { class: 'login' },
      h('h1', {}, 'Tributary'),
      h(
        'form',
        { class: 'form', onsubmit: submit, 'aria-label': 'Log in' },
        h('div', { class: 'field' }, h('label', { for: 'login-user' }, 'Username'), user),
        h('div', { class: 'field' }, h('label', { for: 'login-pass' }, 'Password'), pass),
        h('button', { type: 'submit', class: 'primary' }, 'Log in'),
      ),
      out,
    ),
  );
  user.focus();
}

type Tab = 'query' | 'sources' | 'files' | 'kb';

function showApp(status: Status): void {
  const query = new QueryView();
  const schemaChanged = () => void query.refreshSchema();
  const sources = new SourcesView(schemaChanged);
  const files = new FilesView(schemaChanged, (text) => {
    select('query');
    query.runText(text);
  });
  // A template goes into a new editor tab, not run: the user fills in the names first.
  const kb = new KbView((text) => {
    select('query');
    query.openTab(text);
  });
  const views: Record<Tab, { el: HTMLElement; label: string; refresh?: () => Promise<void> }> = {
    query: { el: query.el, label: 'Query' },
    sources: { el: sources.el, label: 'Sources', refresh: () => sources.refresh() },
    files: { el: files.el, label: 'Files', refresh: () => files.refresh() },
    kb: { el: kb.el, label: 'Knowledge bases', refresh: () => kb.refresh() },
  };
  const buttons = new Map<Tab, HTMLButtonElement>();
  const main = h('main', { class: 'main' });
  const select = (t: Tab) => {
    for (const [k, b] of buttons) {
      b.setAttribute('aria-selected', String(k === t));
      b.tabIndex = tabIndexFor(k === t);
    }
    clear(main, views[t].el);
    void views[t].refresh?.();
    if (t === 'query') query.focus();
  };
  const nav = tabKeys(
    h(
      'nav',
      { class: 'tabs', role: 'tablist', 'aria-label': 'Sections' },
      (Object.keys(views) as Tab[]).map((t) => {
        const b = h(
          'button',
          { type: 'button', role: 'tab', class: 'tab', onclick: () => select(t) },
          views[t].label,
        );
        buttons.set(t, b);
        return b;
      }),
    ),
  );
  const tokenAuth = status.auth_mode !== 'none';
  const logout = async () => {
    await call('POST', '/api/logout').catch(() => {});
    setToken(null);
    clearHistory();
    await start(h('p', { class: 'muted' }, 'Logged out.'));
  };
  clear(
    root,
    h(
      'header',
      { class: 'top' },
      h('strong', { class: 'brand' }, 'Tributary'),
      nav,
      h('span', { class: 'muted version' }, `v${status.version}`),
      tokenAuth ? h('button', { type: 'button', class: 'link', onclick: logout }, 'Log out') : null,
    ),
    main,
  );
  select('query');
  void query.refreshSchema();
}

whenUnauthorized(() => {
  setToken(null);
  void start(errorBox('401', 'Your session ended (the token expired or was revoked): log in again.'));
});

void start();
