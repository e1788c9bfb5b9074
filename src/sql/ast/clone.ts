/**
 * A copy of a statement tree. Trees are plain data (objects, arrays, strings, numbers,
 * bigints, null), and a copy made here by walking them is about ten times as fast as
 * `structuredClone` (0.25 against 1.6-3.6 ms for a 300-member UNION), which a statement
 * filled from a template (parse/templates.ts) and each plan of a shared tree pay. The walk
 * keeps its own stack, so no depth of tree can overflow the call stack. Anything that is
 * not a plain object or array (none is expected) is copied by `structuredClone`.
 */
type Obj = Record<string, unknown>;

function shell(v: object): object | null {
  if (Array.isArray(v)) return new Array(v.length);
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null ? (proto === null ? Object.create(null) : {}) : null;
}

export function cloneTree<T>(root: T): T {
  if (typeof root !== 'object' || root === null) return root;
  const top = shell(root);
  if (top === null) return structuredClone(root);
  const stack: object[] = [root, top];
  const copy = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const s = shell(v);
    if (s === null) return structuredClone(v);
    stack.push(v, s);
    return s;
  };
  while (stack.length) {
    const dst = stack.pop() as Obj;
    const src = stack.pop() as Obj;
    if (Array.isArray(src)) {
      const d = dst as unknown as unknown[];
      for (let i = 0; i < src.length; i++) d[i] = copy(src[i]);
    } else for (const k of Object.keys(src)) dst[k] = copy(src[k]);
  }
  return top as T;
}
