/**
 * A small element builder. Text always goes in as text nodes (never HTML), so a cell holding
 * `<script>` or `<img onerror>` shows as those characters.
 */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

/** An error where the user looks: its MySQL code (or error_code) and message. */
export function errorBox(code: string | number, message: string): HTMLElement {
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('strong', {}, `Error ${code}`),
    h('span', {}, `: ${message}`),
  );
}

export function describeError(e: unknown): HTMLElement {
  const err = e as { code?: string; message?: string };
  const box = errorBox(err.code ?? 'error', err.message ?? String(e));
  if (err.code === 'origin_not_allowed') box.appendChild(originHint());
  return box;
}

/**
 * Why every call fails when the page is opened under a name the server does not know (a
 * host name, a LAN address): /api trusts only the server's own origin and configured ones.
 */
function originHint(): HTMLElement {
  const origin = location.origin;
  return h(
    'p',
    { class: 'hint origin-hint' },
    `This page was opened as ${origin}, which the server does not trust for its API. `,
    'Either open the console at the address the server listens on (for example http://127.0.0.1:47334), or add this origin to ',
    h('code', {}, 'api.mcp.cors.allow_origins'),
    ' in the config file or ',
    h('code', {}, `TRIBUTARY_MCP_ALLOW_ORIGINS=${origin}`),
    ' in the environment, and restart the server. A host name other than localhost / 127.0.0.1 also needs ',
    h('code', {}, 'api.mcp.allowed_hosts'),
    ' (TRIBUTARY_MCP_ALLOWED_HOSTS) when the server binds to loopback.',
  );
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** Saves text as a file through a temporary object URL. */
export function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Arrow keys (and Home/End) move between the tabs of a tablist and select the one reached,
 * as the ARIA tabs pattern asks; the selected tab is the only one in the Tab order.
 */
export function tabKeys(list: HTMLElement): HTMLElement {
  list.addEventListener('keydown', (e) => {
    const tabs = [...list.querySelectorAll<HTMLElement>('[role="tab"]')];
    const i = tabs.indexOf(e.target as HTMLElement);
    if (i < 0) return;
    const j =
      e.key === 'ArrowRight'
        ? (i + 1) % tabs.length
        : e.key === 'ArrowLeft'
          ? (i - 1 + tabs.length) % tabs.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? tabs.length - 1
              : -1;
    if (j < 0) return;
    e.preventDefault();
    tabs[j]!.click();
    // The click may redraw the list: focus the tab now at that place.
    const now = [...list.querySelectorAll<HTMLElement>('[role="tab"]')];
    now[j]?.focus();
  });
  return list;
}

/** Roving tabindex: only the selected tab is reached with Tab. */
export function tabIndexFor(selected: boolean): number {
  return selected ? 0 : -1;
}
