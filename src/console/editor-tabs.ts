import { maskSecrets } from './secrets.js';

/** One editor tab as kept in localStorage: its text with secrets masked (secrets.ts). */
export interface EditorTab {
  id: string;
  text: string;
  cursor: number;
}
export interface TabsState {
  active: string;
  tabs: EditorTab[];
}

export const TABS_KEY = 'tributary.tabs';
const MAX_TABS = 20;

let next = 0;
export function newTabId(): string {
  next += 1;
  return `t${Date.now().toString(36)}${next}`;
}

/** The saved tabs, or one tab holding `fallback` when nothing (usable) is saved. */
export function loadTabs(
  storage: { getItem(key: string): string | null } | null,
  fallback: string,
): TabsState {
  try {
    const v = JSON.parse(storage?.getItem(TABS_KEY) ?? 'null') as TabsState | null;
    const tabs = (Array.isArray(v?.tabs) ? v.tabs : [])
      .filter((t) => t && typeof t.id === 'string' && typeof t.text === 'string')
      .map((t) => ({ id: t.id, text: t.text, cursor: Number.isInteger(t.cursor) ? t.cursor : t.text.length }))
      .slice(0, MAX_TABS);
    if (tabs.length) return { active: tabs.some((t) => t.id === v?.active) ? v!.active : tabs[0]!.id, tabs };
  } catch {
    // unreadable: start afresh
  }
  const id = newTabId();
  return { active: id, tabs: [{ id, text: fallback, cursor: fallback.length }] };
}

/** Saves the tabs with every secret value masked; false when storage refused (full, off). */
export function saveTabs(
  storage: { setItem(key: string, value: string): void } | null,
  state: TabsState,
): boolean {
  try {
    const tabs = state.tabs.map((t) => {
      const text = maskSecrets(t.text);
      return { id: t.id, text, cursor: Math.min(t.cursor, text.length) };
    });
    storage?.setItem(TABS_KEY, JSON.stringify({ active: state.active, tabs }));
    return true;
  } catch {
    return false;
  }
}

/** A tab's label: the start of its first statement. */
export function tabTitle(text: string, n: number): string {
  const first = text
    .replace(/--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return first ? first.slice(0, 18) + (first.length > 18 ? '…' : '') : `Query ${n}`;
}
