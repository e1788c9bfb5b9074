import type { Logger } from 'pino';
import type { SourceManager } from '../catalog/source-manager-types.js';
import { ErrorCode, isTooDeep, SqlError } from '../core/errors.js';
import type { ColumnInfo, FieldInfo } from '../core/types.js';
import type { FragmentReport, StatementSink } from '../observe/statement.js';
import { SourceClosedError } from '../sources/error-util.js';
import type { QueryStream, Source, TableInfo } from '../sources/types.js';
import { cloneTree } from './ast/clone.js';
import type { SqlStatement } from './ast/nodes.js';
import { breathe } from './breathe.js';
import { Deadline } from './deadline.js';

/** How often running statements are checked against query.timeout_ms (its precision). */
const DEADLINE_TICK_MS = 100;

import { epochMs } from '../observe/statement.js';
import { CutAnswer } from './cut-answer.js';
import type {
  ExecOptions,
  QueryContext,
  RelayOutcome,
  ResultPacketSink,
  RowStream,
  SqlEngine,
  StatementPrincipal,
} from './engine-types.js';
import type { ExecutionContext, Outcome } from './execute/context.js';
import { explain } from './execute/explain.js';
import { infoSchemaRows } from './execute/info-schema.js';
import { runKbWrite } from './execute/kb-writes.js';
import type { LocalEngine } from './execute/local.js';
import { INFO_SCHEMA_COLUMNS, ProcessList, SHOW_COLUMNS } from './execute/processlist.js';
import { runPlan } from './execute/run-plan.js';
import { runService } from './execute/service.js';
import { runWrite } from './execute/writes.js';
import { kbsNamed } from './kb-names.js';
import type { KbSearch, KnowledgeBases } from './kb-port.js';
import { readExecutableComments } from './parse/executable-comments.js';
import { dialectHint } from './parse/hints.js';
import type { KbStatement, Statement } from './parse/index.js';
import { type Shape, StatementTemplates, shapeOf } from './parse/templates.js';
import { bindTables } from './plan/bind.js';
import { TtlLru } from './plan/cache.js';
import { constantSelect } from './plan/constant.js';
import { type Plan, planQuery } from './plan/planner.js';
import {
  learnShapePlan,
  type ShapePlan,
  ShapePlans,
  shapePlanFor,
  shapePlanSources,
  shapeSql,
} from './plan/shape-plans.js';
import { decideTable, hiddenColumns } from './policy/decide.js';
import { PolicyDenied, type PolicyView } from './policy/enforce.js';
import { PolicyGate, type PolicySource } from './policy/gate.js';
import { grantRows } from './policy/grants.js';
import { applyRowPolicy } from './policy/relation.js';
import { hasSelectStar, leaveOutHidden } from './policy/star.js';
import { inlinePrincipalValues } from './principal-values.js';
import { encodeRows, errorResult, type Result } from './result.js';

const COLUMN_TTL_MS = 5000;
const KNOWN_VALUES_TTL_MS = 60_000;

const READ_KINDS = new Set([
  'show_databases',
  'show_tables',
  'show_columns',
  'describe',
  'use',
  'show_engines',
  'show_create_database',
  'noop',
  'explain',
  'show_kbs',
  'describe_kb',
  'evaluate_kb',
  'show_processlist',
  'show_grants',
  // Stops a statement; never changes data (MySQL allows it on a read-only server).
  'kill',
]);

const KB_KINDS = new Set(['create_kb', 'drop_kb', 'alter_kb', 'describe_kb', 'show_kbs', 'evaluate_kb']);

/** A statement's literal shape, its shared-plan key (null: not shared) and that key's entry. */
interface Shaped {
  shape: Shape | null;
  key: string | null;
  plan: ShapePlan | null | undefined;
}

export type { Outcome } from './execute/context.js';

export interface EngineDeps {
  sources: SourceManager;
  local: LocalEngine;
  logger: Logger;
  /** Share pushdown plans across statements differing only in integers (default true; tests compare both). */
  shapePlans?: boolean;
  /** query.timeout_ms: a statement running longer is cancelled and answered 3024. 0 or absent: no limit. */
  timeoutMs?: number;
  /** query.max_fragment_rows: rows one source may load into the local engine for one statement (1104 beyond). */
  maxFragmentRows?: number;
  /** Knowledge bases (src/kb/), attached after construction since the service runs statements too. */
  kb?: KnowledgeBases;
  /** Where statements with a caller are reported when they end (observe/: audit log, metrics). */
  observe?: StatementSink;
  /** The process list statements with a caller are listed in (a fresh one when absent). */
  processes?: ProcessList;
  /** The access policy (policy.file; sql/policy/): absent, every principal may do everything. */
  policy?: PolicySource;
}

/**
 * The one SQL engine: parse, bind, plan, run. Faces call `execute` or `stream`;
 * errors come back as results, never as exceptions.
 */
export class Engine implements SqlEngine, ExecutionContext {
  private readonly columnCache = new Map<string, { at: number; cols: Promise<ColumnInfo[]> }>();
  private readonly statements = new TtlLru<Statement>(500, 10 * 60_000);
  /** Statements that differ only in literals share one parse (point lookups by id). */
  private readonly templates = new StatementTemplates(500, 10 * 60_000);
  /** Pushdown plans live as long as the column metadata they were compiled with. */
  private readonly plans = new TtlLru<Plan>(500, COLUMN_TTL_MS);
  /** SELECTs planned to run (in part) locally: the wire face's relay does not plan them again. */
  private readonly notPushedDown = new TtlLru<true>(500, COLUMN_TTL_MS);
  /** ...and so do pushdown plans shared by a literal shape (`WHERE id = 17`, `= 18`, ...). */
  private readonly shapePlans = new ShapePlans(500, COLUMN_TTL_MS);
  private readonly tableLists = new TtlLru<{ source: Source; tables: Promise<TableInfo[]> }>(
    100,
    COLUMN_TTL_MS,
  );
  private readonly known = new TtlLru<{ source: Source; values: Promise<Map<string, string[]>> }>(
    500,
    KNOWN_VALUES_TTL_MS,
  );

  /** Running statements of every face and the MySQL connections (SHOW PROCESSLIST, KILL). */
  readonly processes: ProcessList;

  /** Where every statement is checked against the access policy (sql/policy/gate.ts). */
  private readonly gate: PolicyGate;
  /** Plans made from a tree the policy rewrote (a `*` without hidden columns): never shared. */
  private readonly policyShaped = new WeakSet<Plan>();

  constructor(private readonly deps: EngineDeps) {
    this.processes = deps.processes ?? new ProcessList();
    this.gate = new PolicyGate(deps.policy, {
      defaultSchemaNow: (s) => this.deps.sources.peek?.(s)?.defaultSchema,
      defaultSchema: (s) =>
        this.deps.sources.get(s).then(
          (x) => x.defaultSchema,
          () => null,
        ),
      isKb: (n) => this.deps.kb?.has(n) ?? false,
    });
  }

  /** What exists for the statement's principal (listings); null: everything. */
  view(ctx: QueryContext): PolicyView | null {
    return this.gate.view(ctx.principal);
  }

  get sources(): SourceManager {
    return this.deps.sources;
  }

  /** Statements running now, each with its deadline (so a shutdown can stop them). */
  private readonly runningStatements = new Set<Deadline>();
  private readonly forget = (d: Deadline) => {
    this.runningStatements.delete(d);
    this.processes.end(d);
  };

  /** One interval checks every running statement's deadline (none while nothing runs). */
  private ticker: NodeJS.Timeout | null = null;

  /** The statement's deadline and the options that carry its signal. */
  private deadline(opts: ExecOptions, sql: string, ctx: QueryContext): [Deadline, RunExecOptions] {
    const ms = statementLimit(this.deps.timeoutMs ?? 0, opts.timeoutMs);
    const d = new Deadline(ms, opts.signal, this.forget, opts.abort);
    this.runningStatements.add(d);
    const caller = opts.caller;
    // Listed while it runs (SHOW PROCESSLIST); KILL stops it through its deadline.
    if (caller)
      this.processes.begin(d, {
        principal: caller.principal,
        transport: caller.transport,
        host: caller.host,
        connection: caller.connection,
        sql,
        db: ctx.db,
      });
    if (this.ticker === null && ms) {
      this.ticker = setInterval(() => {
        const now = performance.now();
        for (const s of this.runningStatements) s.expireIfDue(now);
        if (this.runningStatements.size === 0 && this.ticker) {
          clearInterval(this.ticker);
          this.ticker = null;
        }
      }, DEADLINE_TICK_MS);
      this.ticker.unref();
    }
    // Fragments are recorded only for a statement a face sent, and only when traces are on.
    const fragments = opts.caller && this.deps.observe?.traces ? [] : undefined;
    // The keys the caller's options may lack come before the spread: keys added after a
    // spread take V8 off its fast copy (about 1.6 us a statement in Node 20; 0.05 this way).
    const run: RunExecOptions = {
      signal: undefined,
      fragments: undefined,
      kbs: undefined,
      principal: undefined,
      policyRules: undefined,
      policyDenied: undefined,
      ...opts,
    };
    run.abort = undefined;
    run.signal = d.signal;
    run.fragments = fragments;
    run.principal = ctx.principal;
    return [d, run];
  }

  runningStatementCount(): number {
    return this.runningStatements.size;
  }

  /** Cancel every running statement at its sources; each is answered 1053 (server shutdown). */
  stopStatements(): number {
    const n = this.runningStatements.size;
    for (const d of this.runningStatements) d.stop();
    return n;
  }

  async stream(sql0: string, ctx: QueryContext = {}, opts0: ExecOptions = {}): Promise<RowStream | Result> {
    const sql = inlinePrincipalValues(readExecutableComments(sql0), ctx.principal);
    const [deadline, opts] = this.deadline(opts0, sql, ctx);
    const started = performance.now();
    const report = (rows: number, errorCode?: number, affectedRows?: number | null) =>
      this.report(sql, ctx, opts, started, rows, false, errorCode, affectedRows);
    try {
      const out = await this.run(sql, ctx, opts);
      if (out.kind !== 'stream') deadline.clear();
      if (out.kind === 'ok') {
        report(0, undefined, out.affected);
        return { type: 'ok', affected_rows: out.affected, ...out.counts };
      }
      if (out.kind === 'table') {
        const t = out.table;
        report(t.rows.length);
        return {
          type: 'rows',
          columns: t.columns,
          batches: once(encodeRows(t.columns, t.rows)),
          cancel: async () => {},
        };
      }
      const s = out.stream;
      const fields = s.columns;
      let read = 0;
      let ended = false;
      // Once per statement, however it ends: read to the end, failed, or stopped by its reader.
      const end = (failure?: number) => {
        if (ended) return;
        ended = true;
        deadline.clear();
        report(read, failure);
      };
      async function* batches() {
        let failure: number | undefined;
        try {
          for await (const b of s.batches) {
            read += b.length;
            opts.onProgress?.(read);
            yield encodeRows(fields, b);
          }
        } catch (e) {
          const mapped = deadline.map(e);
          failure = mapped instanceof SqlError ? mapped.code : ErrorCode.SOURCE_ERROR;
          throw mapped;
        } finally {
          end(failure);
        }
      }
      const cancel = () => {
        // A reader that stops early (a client gone) ends the statement here: cancelled.
        if (!ended && opts.signal?.aborted) {
          const why = deadline.map(null);
          end(why instanceof SqlError ? why.code : ErrorCode.QUERY_INTERRUPTED);
        } else end();
        return s.cancel();
      };
      return { type: 'rows', columns: fields, batches: batches(), cancel };
    } catch (e) {
      deadline.clear();
      const r = this.fail(deadline.map(e), sql);
      if (r.type === 'error') report(0, r.error_code);
      return r;
    }
  }

  /** See SqlEngine.relay. */
  async relay(
    sql0: string,
    ctx: QueryContext,
    opts0: ExecOptions,
    sink: ResultPacketSink,
  ): Promise<RelayOutcome> {
    // A held transaction's reads run on its connection, through the normal path.
    if (opts0.readOnly || opts0.transaction?.holding) return null;
    const sql = inlinePrincipalValues(readExecutableComments(sql0), ctx.principal);
    const pre = this.shapedNow(sql, ctx);
    let target: PushdownTarget | null | undefined;
    // The policy's rules that decided, for the audit line (the statement's options come later).
    const noted: RunExecOptions = {};
    try {
      if (pre && this.sharedPlanAllowed(pre.shaped, ctx, noted))
        target = this.knownPushdownTarget(pre.shaped);
    } catch {
      // Refused by the policy: the normal path answers (and reports) the refusal.
      return null;
    }
    if (target === undefined) {
      try {
        target = await this.pushdownTarget(sql, ctx, pre, noted);
      } catch {
        // The normal path answers (and reports) the same failure.
        return null;
      }
    }
    const source = target?.source;
    if (!target || !source?.relayQuery) return null;
    const [deadline, opts] = this.deadline(opts0, sql, ctx);
    opts.policyRules = noted.policyRules;
    const started = performance.now();
    const labels = target.labels;
    let rows = 0;
    let headed = false;
    const counted: ResultPacketSink = {
      // Named as MySQL would name them, as relabel() does on the normal path.
      head: (columns, resume) => {
        headed = true;
        sink.head(
          labels && labels.length === columns.length ? this.relabeled(columns, labels) : columns,
          resume,
        );
      },
      row: (buf, start, end) => {
        rows++;
        return sink.row(buf, start, end);
      },
    };
    opts.fragments?.push({
      source: source.name,
      engine: source.engine,
      pushdown: true,
      startedAt: epochMs(),
    });
    try {
      const n = await source.relayQuery(target.sql, counted, {
        signal: opts.signal,
        shape: pre?.shaped.shape?.key,
      });
      deadline.clear();
      if (n === null) return null;
      this.report(sql, ctx, opts, started, rows, false, undefined);
      return { type: 'relayed', rows };
    } catch (e) {
      deadline.clear();
      // Dropped or replaced meanwhile: the normal path answers as if the statement came after.
      if (e instanceof SourceClosedError && !headed) return null;
      // As `stream` answers: a failure once the columns are known has no dialect hint.
      const mapped = deadline.map(e);
      const r = headed ? errorResult(mapped) : this.fail(mapped, sql);
      if (r.type !== 'error') return null;
      this.report(sql, ctx, opts, started, rows, false, r.error_code);
      return r;
    }
  }

  /** Relayed columns named by `labels`; one array per (columns, labels), which the wire face's column-definition memo keys on. */
  private relabeled(columns: FieldInfo[], labels: string[]): FieldInfo[] {
    const m = this.relabels.get(columns);
    if (m?.labels === labels) return m.out;
    const out = columns.map((c, i) => ({ ...c, name: labels[i] }));
    this.relabels.set(columns, { labels, out });
    return out;
  }

  private readonly relabels = new WeakMap<FieldInfo[], { labels: string[]; out: FieldInfo[] }>();

  /**
   * The whole result, cut at `maxRows` (then `truncated`). Reads the source's batches
   * itself rather than through `stream()`'s generator: one async generator less per call
   * is a measurable share of a point lookup.
   */
  async execute(sql0: string, ctx: QueryContext = {}, opts0: ExecOptions = {}): Promise<Result> {
    const sql = inlinePrincipalValues(readExecutableComments(sql0), ctx.principal);
    const [deadline, opts] = this.deadline(opts0, sql, ctx);
    const started = performance.now();
    let result: Result | undefined;
    try {
      result = await this.executeWithin(sql, ctx, opts, deadline);
      return result;
    } finally {
      deadline.clear();
      if (opts.caller && this.deps.observe) {
        const r = result;
        if (r?.type === 'table')
          this.report(sql, ctx, opts, started, r.data.length, r.truncated === true, undefined);
        else if (r?.type === 'ok') this.report(sql, ctx, opts, started, 0, false, undefined, r.affected_rows);
        else this.report(sql, ctx, opts, started, 0, false, r?.error_code ?? ErrorCode.SOURCE_ERROR);
      }
    }
  }

  /** Tells observe/ (audit log, metrics) how a statement ended; only statements a face sent. */
  private report(
    sql: string,
    ctx: QueryContext,
    opts: RunExecOptions,
    started: number,
    rows: number,
    truncated: boolean,
    errorCode: number | undefined,
    affectedRows?: number | null,
  ): void {
    const sink = this.deps.observe;
    if (!sink || !opts.caller) return;
    sink.statement({
      sql,
      db: ctx.db,
      principal: opts.caller.principal,
      transport: opts.caller.transport,
      rows,
      truncated,
      affectedRows,
      durationMs: performance.now() - started,
      errorCode,
      startedAt: performance.timeOrigin + started,
      fragments: opts.fragments,
      kbs: opts.kbs,
      policyRules: opts.policyRules,
      policyDenied: opts.policyDenied,
    });
  }

  private async executeWithin(
    sql: string,
    ctx: QueryContext,
    opts: ExecOptions,
    deadline: Deadline,
  ): Promise<Result> {
    let out: Outcome;
    try {
      out = await this.run(sql, ctx, opts);
    } catch (e) {
      return this.fail(deadline.map(e), sql);
    }
    if (out.kind === 'ok') return { type: 'ok', affected_rows: out.affected, ...out.counts };
    const columns: FieldInfo[] = out.kind === 'table' ? out.table.columns : out.stream.columns;
    const names = columns.map((c) => c.name);
    const answer = new CutAnswer(names, opts.maxRows ?? Number.POSITIVE_INFINITY, opts.maxBytes);
    // The rows past a cut go to keepRest when the caller keeps them (MCP result handles).
    const keep = async (after: unknown[][], more: AsyncIterator<unknown[][]> | null, read: number) => {
      if (!opts.keepRest) return;
      const batches = restOf(after, more, columns, opts.onProgress, read);
      await opts.keepRest({ column_names: names, shown: answer.data, batches }).catch(() => {});
    };
    if (out.kind === 'table') {
      const rows = encodeRows(columns, out.table.rows);
      const at = answer.take(rows);
      if (answer.truncated) await keep(rows.slice(at), null, rows.length);
    } else {
      const s = out.stream;
      // Iterated by hand: after a cut the same iterator goes on feeding keepRest.
      const it = s.batches[Symbol.asyncIterator]();
      let read = 0;
      try {
        for (let n = await it.next(); !n.done; n = await it.next()) {
          read += n.value.length;
          opts.onProgress?.(read);
          const rows = encodeRows(columns, n.value);
          const at = answer.take(rows);
          if (answer.truncated) {
            await keep(rows.slice(at), it, read);
            break;
          }
        }
      } catch (e) {
        await s.cancel().catch(() => {});
        return this.fail(deadline.map(e), sql);
      }
      await it.return?.().catch(() => {});
      await s.cancel().catch(() => {});
    }
    const result: Result = { type: 'table', column_names: names, data: answer.data };
    if (answer.truncated) result.truncated = true;
    return result;
  }

  private fail(e: unknown, sql: string): Result {
    if (!(e instanceof SqlError) && !isTooDeep(e)) {
      this.deps.logger.error(
        {
          err: { message: (e as Error)?.message, stack: (e as Error)?.stack },
          kind: sql.trim().split(/\s+/)[0],
        },
        'internal error in SQL engine',
      );
    }
    const r = errorResult(e);
    // Habits from other dialects (`::`, date_trunc, ILIKE, "names") get a concrete rewrite.
    const hint = e instanceof SqlError ? dialectHint(sql) : null;
    if (hint && r.type === 'error') r.error_message = `${r.error_message}. Hint: ${hint}`;
    return r;
  }

  /**
   * Parse and run one statement. One that reached a source closed meanwhile (dropped, or
   * replaced by DROP + CREATE while it started) answers as if it came after: 1049 when the
   * source is gone, else it runs again on the source as it is now (nothing ran on the closed
   * one: a closed source refuses before it sends anything).
   */
  async run(sql: string, ctx: QueryContext, opts: RunExecOptions): Promise<Outcome> {
    try {
      return await this.runOnce(sql, ctx, opts);
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      if (e instanceof SourceClosedError) {
        await this.deps.sources.get(e.source);
        return this.runOnce(sql, ctx, opts);
      }
      // A name no KB had here may be one another replica made a moment ago (its NOTIFY on the way).
      if (e instanceof SqlError && KB_MAYBE.has(e.code) && (await this.deps.kb?.sync?.()))
        return this.runOnce(sql, ctx, opts);
      throw e;
    }
  }

  private async runOnce(sql: string, ctx: QueryContext, opts: RunExecOptions): Promise<Outcome> {
    const found = await this.selectPlan(sql, ctx, undefined, opts.signal, opts);
    if ('plan' in found) {
      const stream = await runPlan(found.plan, this.deps.local, this.runOpts(opts));
      return { kind: 'stream', stream: relabel(stream, found.labels) };
    }
    const stmt = found.stmt;
    // Only a statement that will be reported is looked through (and, by kbsNamed, only while KBs exist).
    const kb = this.deps.kb;
    if (kb && opts.caller && this.deps.observe) (opts as RunExecOptions).kbs = kbsNamed(stmt, kb);
    if (opts.readOnly) assertReadOnly(stmt);
    if (stmt.kind === 'sql' && stmt.ast.type === 'select') {
      // Nothing to read at all: a select list of literals is its own answer.
      const constant = stmt.ast.from == null ? constantSelect(sql) : null;
      if (constant) {
        const stream: QueryStream = {
          columns: constant.columns,
          batches: once([constant.row]),
          cancel: async () => {},
        };
        return { kind: 'stream', stream: relabel(stream, stmt.labels) };
      }
      const plan = await this.planSelect(
        sql,
        stmt,
        ctx,
        found.shaped,
        found.generation,
        found.scope,
        found.owned,
        found.uncached,
      );
      // SELECT ... FOR UPDATE / FOR SHARE in a transaction locks rows where the transaction writes.
      if (stmt.ast.locking_read && plan.kind === 'pushdown')
        await opts.transaction?.forWrite(
          plan.source,
          opts.signal,
          'a locking read (FOR UPDATE / FOR SHARE) of',
        );
      const stream = await runPlan(plan, this.deps.local, this.runOpts(opts));
      return { kind: 'stream', stream: relabel(stream, found.uncached ? null : stmt.labels) };
    }
    // Anything but a SELECT may change what later plans should say.
    this.forgetColumns();
    return this.runStatement(
      stmt.kind === 'sql' && !found.owned ? { ...stmt, ast: cloneTree(stmt.ast) } : stmt,
      ctx,
      opts,
    );
  }

  /**
   * A statement's shared pushdown plan when its shape has one (nothing parsed then), else
   * its parse. A statement filled from a template (templates.ts) is a tree of its own,
   * planned as it is; one parsed whole is cached by its text per source list (the pre-pass
   * depends on it), and since planners mutate trees, each run plans a copy of it.
   */
  private async selectPlan(
    sql: string,
    ctx: QueryContext,
    /** The statement's shape when the caller has it (shapedNow). */
    pre?: { scope: string; shaped: Shaped },
    /** Stops a parse running off the event loop (the statement's deadline). */
    signal?: AbortSignal,
    /** Where the policy's rules applied (or the one that refused) are noted for the audit log. */
    opts?: RunExecOptions,
  ): Promise<
    | { plan: Plan; labels: string[] | null; stmt?: undefined }
    | {
        stmt: Statement;
        shaped: Shaped | undefined;
        generation: number;
        scope: string;
        owned: boolean;
        /** The policy rewrites this statement for its principal: plan it afresh, share nothing. */
        uncached: boolean;
      }
  > {
    const names = this.deps.sources.namesNow?.() ?? (await this.deps.sources.names());
    const generation = this.shapePlans.generation;
    const scope = this.scopeOf(names);
    const key = `${scope}\u0001${sql}`;
    let stmt = this.statements.get(key);
    let shaped: Shaped | undefined;
    let owned = false;
    if (!stmt) {
      shaped = pre?.scope === scope ? pre.shaped : this.shaped(sql, scope, ctx);
      // Only SELECTs with a FROM are shared: read-only mode allows them, the constant path never takes them.
      const known = this.sharedPlanAllowed(shaped, ctx, opts) ? shaped.plan : undefined;
      if (
        known?.kind === 'pushdown' &&
        (this.isOpen(known.source) ?? (await this.sameSource(known.source)))
      ) {
        const plan: Plan = {
          kind: 'pushdown',
          source: known.source,
          sql: shapeSql(known, shaped.shape!),
          retype: known.retype,
          origins: known.origins,
        };
        return { plan, labels: known.labels };
      }
      if (known?.kind === 'local' && (await this.sameSources(known)))
        return { plan: shapePlanFor(known, shaped.shape!), labels: known.labels };
      await breathe(sql);
      const set = new Set(names.map((n) => n.toLowerCase()));
      const parsed = this.templates.parse(
        sql,
        (n) => set.has(n.toLowerCase()),
        scope,
        shaped.shape,
        names,
        signal,
      );
      stmt = parsed instanceof Promise ? await parsed : parsed;
      const filled = shaped.shape !== null && this.templates.template(shaped.shape) !== undefined;
      owned = filled || !this.statements.keeps(key);
      if (!owned) this.statements.set(key, stmt);
      await breathe(sql);
    }
    let uncached = false;
    // The access policy, once the statement is parsed (no await when none binds its principal).
    if (this.gate.bound(ctx))
      try {
        const auth = await this.gate.check(shaped?.key ?? `${ctx.db ?? ''}\u0001${key}`, stmt, ctx);
        if (auth) {
          uncached = auth.hiddenStars > 0 || auth.rewrites > 0;
          if (opts) opts.policyRules = auth.rules;
          if (auth.rewrites > 0 && !readsOnly(stmt))
            throw new SqlError(
              ErrorCode.NOT_SUPPORTED,
              'The access policy filters rows or masks columns of a table this statement reads: only SELECT (and EXPLAIN SELECT) apply it; refused rather than run unfiltered',
            );
        }
      } catch (e) {
        if (e instanceof PolicyDenied && opts) opts.policyDenied = e.rule;
        throw e;
      }
    return { stmt, shaped, generation, scope, owned, uncached };
  }

  /**
   * Whether a shared plan (by literal shape) may serve this statement without a parse: always
   * when no policy binds its principal; else only when the policy allows what the shape was
   * seen to do (throws PolicyDenied when it refuses) and rewrites nothing.
   */
  private sharedPlanAllowed(shaped: Shaped, ctx: QueryContext, opts?: RunExecOptions): boolean {
    if (!this.gate.bound(ctx)) return true;
    if (!shaped.key) return false;
    let auth: ReturnType<PolicyGate['checkKnown']>;
    try {
      auth = this.gate.checkKnown(shaped.key, ctx);
    } catch (e) {
      if (e instanceof PolicyDenied && opts) opts.policyDenied = e.rule;
      throw e;
    }
    if (!auth || auth.hiddenStars > 0 || auth.rewrites > 0) return false;
    if (opts) opts.policyRules = auth.rules;
    return true;
  }

  /** The plan of a SELECT that reads something: cached pushdown plans, shapes learnt on the way. */
  private async planSelect(
    sql: string,
    stmt: Extract<Statement, { kind: 'sql' }>,
    ctx: QueryContext,
    shaped0: Shaped | undefined,
    generation: number,
    scope: string,
    /** The tree is this call's own (selectPlan): planned without a copy. */
    owned: boolean,
    /** The policy rewrites it for this principal: planned afresh, nothing shared (selectPlan). */
    uncached = false,
  ): Promise<Plan> {
    if (uncached) return this.plan(owned ? stmt.ast : structuredClone(stmt.ast), ctx, sql.length);
    let shaped = shaped0;
    const planKey = `${ctx.db ?? ''}\u0001${scope}\u0001${sql}`;
    let plan = this.plans.get(planKey);
    // A source dropped and created again (here or by another replica) is a new object.
    if (plan?.kind === 'pushdown' && !(this.isOpen(plan.source) ?? (await this.sameSource(plan.source))))
      plan = undefined;
    if (!plan) {
      plan = await this.plan(owned ? stmt.ast : cloneTree(stmt.ast), ctx, sql.length);
      await breathe(sql);
      if (this.policyShaped.has(plan)) return plan;
      if (plan.kind === 'pushdown') this.plans.set(planKey, plan);
      shaped ??= this.shaped(sql, scope, ctx);
      // Learn a shape not seen yet, or again when its sources changed; a refusal stands until it expires.
      // A locking read is never shared: `run` must see its tree (it holds a transaction's source).
      if (
        shaped.key &&
        !(stmt.ast.type === 'select' && stmt.ast.locking_read) &&
        (shaped.plan === undefined || (shaped.plan && !(await this.sameSources(shaped.plan))))
      )
        await this.learnShape(shaped, plan, stmt.labels, ctx, generation);
    }
    return plan;
  }

  /**
   * Where a statement runs when the engine pushes it down whole, as it is, to one source:
   * a plain SELECT (no INTO, no locking read) whose plan is `pushdown` with no result
   * retyping. Null for anything else. Plans as `run` does (same caches); runs nothing.
   */
  private async pushdownTarget(
    sql: string,
    ctx: QueryContext,
    pre?: { scope: string; shaped: Shaped },
    /** Where the policy's rules that decided are noted. */
    noted?: RunExecOptions,
  ): Promise<PushdownTarget | null> {
    const found = await this.selectPlan(sql, ctx, pre, undefined, noted);
    let plan: Plan;
    let labels: string[] | null;
    if ('plan' in found) {
      plan = found.plan;
      labels = found.labels;
    } else {
      const stmt = found.stmt;
      if (stmt.kind !== 'sql' || stmt.ast.type !== 'select' || stmt.ast.from == null) return null;
      if (stmt.ast.into?.position || stmt.ast.locking_read) return null;
      // Plans that are not pushdowns are not cached: without this, each such statement would be planned twice.
      const planKey = `${ctx.db ?? ''}\u0001${found.scope}\u0001${sql}`;
      if (this.notPushedDown.get(planKey)) return null;
      plan = await this.planSelect(
        sql,
        stmt,
        ctx,
        found.shaped,
        found.generation,
        found.scope,
        found.owned,
        found.uncached,
      );
      if (plan.kind !== 'pushdown') this.notPushedDown.set(planKey, true);
      // A `*` the policy expanded has columns of its own: the parse's labels are not theirs.
      labels = found.uncached ? null : (stmt.labels ?? null);
    }
    if (plan.kind !== 'pushdown' || (plan.retype && plan.retype.length > 0)) return null;
    return { source: plan.source, sql: plan.sql, labels };
  }

  /**
   * The shape of a statement whose text is not cached (as selectPlan takes it), when the
   * source list is at hand without an await; undefined otherwise.
   */
  private shapedNow(sql: string, ctx: QueryContext): { scope: string; shaped: Shaped } | undefined {
    const names = this.deps.sources.namesNow?.();
    if (!names) return undefined;
    const scope = this.scopeOf(names);
    if (this.statements.get(`${scope}\u0001${sql}`)) return undefined;
    return { scope, shaped: this.shaped(sql, scope, ctx) };
  }

  /**
   * pushdownTarget without an await: for a shape with a shared pushdown plan on a source
   * open now (a point lookup seen before); undefined when it takes more. Two async layers
   * fewer on the relay's path.
   */
  private knownPushdownTarget(shaped: Shaped): PushdownTarget | null | undefined {
    const known = shaped.plan;
    if (known?.kind !== 'pushdown' || this.isOpen(known.source) !== true) return undefined;
    if (known.retype && known.retype.length > 0) return null;
    return { source: known.source, sql: shapeSql(known, shaped.shape!), labels: known.labels };
  }

  /** The statement's literal shape (one tokenization), its shared-plan key and what is cached there. */
  private shaped(sql: string, scope: string, ctx: QueryContext): Shaped {
    const shape = shapeOf(sql, scope);
    const key = shape && this.deps.shapePlans !== false ? this.shapePlans.key(shape, ctx.db) : null;
    return { shape, key, plan: key ? this.shapePlans.get(key) : undefined };
  }

  /** The scope key of a source list; the catalog hands out one array until it changes. */
  private scopeOf(names: string[]): string {
    if (names !== this.scopeNames) {
      this.scopeNames = names;
      this.scope = names.join('\u0000');
    }
    return this.scope;
  }

  private scopeNames: string[] | null = null;
  private scope = '';

  /** `sameSource` without an await when the source is open now (undefined: ask `sameSource`). */
  private isOpen(source: Source): boolean | undefined {
    const open = this.deps.sources.peek?.(source.name);
    return open === undefined ? undefined : open === source;
  }

  /** Whether every source a shape's plan reads is still the catalog's source of its name. */
  private async sameSources(plan: ShapePlan): Promise<boolean> {
    for (const source of shapePlanSources(plan))
      if (!(this.isOpen(source) ?? (await this.sameSource(source)))) return false;
    return true;
  }

  /** Whether `source` is still the catalog's source of that name. */
  private async sameSource(source: Source): Promise<boolean> {
    const open = this.deps.sources.peek?.(source.name);
    if (open !== undefined) return open === source;
    return (await this.deps.sources.get(source.name).catch(() => null)) === source;
  }

  private async learnShape(
    shaped: Shaped,
    plan: Plan,
    labels: string[] | null | undefined,
    ctx: QueryContext,
    generation: number,
  ): Promise<void> {
    const shape = shaped.shape!;
    const template = this.templates.template(shape);
    const learned = template
      ? await learnShapePlan({
          shape,
          template,
          plan,
          labels: labels ?? null,
          planAst: (ast) => this.plan(ast, ctx),
        })
      : null;
    this.shapePlans.set(shaped.key!, learned, generation);
  }

  async runStatement(stmt: Statement, ctx: QueryContext, opts: ExecOptions): Promise<Outcome> {
    if (stmt.kind === 'explain') return { kind: 'table', table: await explain(this, stmt.inner, ctx) };
    if (KB_KINDS.has(stmt.kind)) {
      const out = await this.kb().run(stmt as KbStatement, ctx);
      if ('affected' in out) return { kind: 'ok', affected: out.affected };
      // Knowledge bases the principal may not use do not exist for it.
      const view = stmt.kind === 'show_kbs' ? this.view(ctx) : null;
      if (view) out.rows = out.rows.filter((r) => view.seesKb(String(r[0])));
      return { kind: 'table', table: out };
    }
    if (stmt.kind === 'show_grants')
      return {
        kind: 'table',
        table: grantRows(this.deps.policy?.current() ?? null, ctx.principal, stmt.user),
      };
    if (stmt.kind === 'show_processlist')
      return {
        kind: 'table',
        table: { columns: SHOW_COLUMNS, rows: this.processes.rows(viewer(opts), stmt.full) },
      };
    if (stmt.kind === 'kill') {
      this.processes.kill(viewer(opts), stmt.id, stmt.query);
      return { kind: 'ok', affected: 0 };
    }
    if (stmt.kind !== 'sql') return runService(this, stmt, ctx);
    const ast = stmt.ast;
    const kbWrite = await runKbWrite(this, this.deps.kb, ast, ctx, opts);
    if (kbWrite) return kbWrite;
    if (ast.type === 'select') {
      const plan = await this.plan(ast, ctx);
      const stream = await runPlan(plan, this.deps.local, this.runOpts(opts));
      return { kind: 'stream', stream: relabel(stream, stmt.labels) };
    }
    return runWrite(this, ast, ctx, opts, stmt.text.length);
  }

  runOpts(opts: RunExecOptions) {
    return {
      signal: opts.signal,
      onProgress: opts.onProgress,
      infoRows: (t: string) =>
        t.toLowerCase() === 'processlist'
          ? Promise.resolve({ columns: INFO_SCHEMA_COLUMNS, rows: this.processes.rows(viewer(opts), true) })
          : infoSchemaRows(this, t, this.gate.view((opts as RunExecOptions).principal)),
      maxFragmentRows: this.deps.maxFragmentRows,
      kbRows: (name: string, search: KbSearch, signal?: AbortSignal) =>
        this.kb().search(name, search, signal),
      readOnly: opts.readOnly,
      fragments: opts.fragments,
      held: opts.transaction?.holding ? (s: Source) => opts.transaction?.heldFor(s) : undefined,
    };
  }

  kbColumns(name: string): Promise<ColumnInfo[]> | null {
    const kb = this.deps.kb;
    return kb?.has(name) ? kb.columns(name) : null;
  }

  /** Attach the knowledge-base service (it needs this engine to read sources, so it comes second). */
  attachKnowledgeBases(kb: KnowledgeBases): void {
    this.deps.kb = kb;
  }

  private kb(): KnowledgeBases {
    if (!this.deps.kb)
      throw new SqlError(ErrorCode.NOT_SUPPORTED, 'Knowledge bases are not available in this server');
    return this.deps.kb;
  }

  get local(): LocalEngine {
    return this.deps.local;
  }

  /** `size`: the statement's text length, so a big one lets others run between binding and planning. */
  async plan(ast: SqlStatement, ctx: QueryContext, size = 0): Promise<Plan> {
    const kb = this.deps.kb;
    const starred = hasSelectStar(ast) && (await this.leaveOutHidden(ast, ctx));
    const notes = await this.filterAndMask(ast, ctx);
    const refs = bindTables(ast, ctx, kb ? (n) => kb.has(n) : undefined);
    await breathe(size);
    const bound = await this.planBound(ast, refs, ctx);
    // A plan the policy rewrote is this statement's own (never shared): it may carry the notes.
    const plan = notes.length > 0 ? { ...bound, policy: notes } : bound;
    if (starred || notes.length > 0) this.policyShaped.add(plan);
    return plan;
  }

  /** Each table read becomes its principal's filtered, masked relation (policy/relation.ts); what it did, per table. */
  private async filterAndMask(ast: SqlStatement, ctx: QueryContext): Promise<string[]> {
    const policy = this.gate.bound(ctx);
    if (!policy) return [];
    const kb = this.deps.kb;
    const applied = await applyRowPolicy(ast, {
      db: ctx.db,
      isKb: kb ? (n) => kb.has(n) : undefined,
      defaultSchema: (s) => this.deps.sources.peek?.(s)?.defaultSchema ?? null,
      filterFor: (t) => this.gate.filterFor(ctx, t),
      masksFor: (t) => this.gate.masksFor(ctx, t),
      hidden: (t) => hiddenColumns(decideTable(policy, ctx.principal!, t)),
      columns: async (t) => {
        const source = await this.deps.sources.get(t.source);
        return (await this.columns(source, t.schema, t.table)).map((c) => ({ name: c.name, type: c.type }));
      },
    });
    return applied.notes;
  }

  /** `*` in the statement without the columns its principal may not see (policy/star.ts); true when rewritten. */
  private async leaveOutHidden(ast: SqlStatement, ctx: QueryContext): Promise<boolean> {
    const policy = this.gate.bound(ctx);
    if (!policy) return false;
    const p = ctx.principal!;
    const kb = this.deps.kb;
    return leaveOutHidden(ast, {
      db: ctx.db,
      user: p.user,
      isKb: kb ? (n) => kb.has(n) : undefined,
      hidden: (t) =>
        hiddenColumns(
          decideTable(policy, p, {
            ...t,
            schema: t.schema ?? this.deps.sources.peek?.(t.source)?.defaultSchema ?? null,
          }),
        ),
      columns: async (t) => {
        const source = await this.deps.sources.get(t.source);
        return (await this.columns(source, t.schema, t.table)).map((c) => c.name);
      },
    });
  }

  private planBound(
    ast: SqlStatement,
    refs: ReturnType<typeof bindTables>,
    ctx: QueryContext,
  ): Promise<Plan> {
    const kb = this.deps.kb;
    return planQuery(ast, refs, {
      source: (n) => this.deps.sources.get(n),
      columns: (s, schema, table) => this.columns(s, schema, table),
      knownValues: (s, schema, table, cols) => this.knownValues(s, schema, table, cols),
      tableType: (s, schema, table) => this.tableType(s, schema, table),
      defaultSource: async () => (ctx.db ? this.deps.sources.get(ctx.db).catch(() => null) : null),
      kb: kb
        ? {
            columns: (n) => kb.columns(n),
            filterSupport: (n, c) => kb.filterSupport(n, c),
            maxResults: kb.maxResults ?? 10000,
          }
        : undefined,
    });
  }

  /**
   * Columns of a source table, cached briefly (planning asks for them on every cross-source
   * query). The lookup in flight is shared: a statement naming one table 300 times (a wide
   * UNION) asks the source once.
   */
  async columns(source: Source, schema: string | null, table: string): Promise<ColumnInfo[]> {
    const key = `${source.name.toLowerCase()}\u0000${schema ?? ''}\u0000${table}`;
    const hit = this.columnCache.get(key);
    if (hit && Date.now() - hit.at < COLUMN_TTL_MS) return hit.cols;
    const cols = source.listColumns(table, schema ?? undefined);
    const entry = { at: Date.now(), cols };
    this.columnCache.set(key, entry);
    // A failed lookup is not kept.
    cols.catch(() => {
      if (this.columnCache.get(key) === entry) this.columnCache.delete(key);
    });
    return cols;
  }

  /**
   * Whether a table of the source's default schema is a base table or a view (from its
   * cached table list); null for other schemas and unknown names.
   */
  private async tableType(source: Source, schema: string | null, table: string): Promise<string | null> {
    if (schema !== null && schema !== source.defaultSchema) return null;
    const key = source.name.toLowerCase();
    let hit = this.tableLists.get(key);
    if (!hit || hit.source !== source) {
      hit = { source, tables: source.listTables().catch(() => []) };
      this.tableLists.set(key, hit);
    }
    const tables = await hit.tables;
    const exact =
      tables.find((t) => t.name === table) ??
      tables.find((t) => t.name.toLowerCase() === table.toLowerCase());
    return exact?.type ?? null;
  }

  /**
   * Known spellings of text columns (the source's statistics), cached for a minute: they
   * only make comparisons cheaper, so a failure or a stale answer costs speed, never rows.
   */
  private async knownValues(
    source: Source,
    schema: string | null,
    table: string,
    columns: string[],
  ): Promise<Map<string, string[]>> {
    const key = [source.name.toLowerCase(), schema ?? '', table, ...columns].join('\u0000');
    const hit = this.known.get(key);
    if (hit && hit.source === source) return hit.values;
    // Shared while in flight, as columns() is.
    const values = (source.knownValues?.(table, schema, columns) ?? Promise.resolve(new Map())).catch(
      () => new Map<string, string[]>(),
    );
    this.known.set(key, { source, values });
    return values;
  }

  private readonly schemaListeners = new Set<() => void>();

  onSchemaChanged(listener: () => void): () => void {
    this.schemaListeners.add(listener);
    return () => this.schemaListeners.delete(listener);
  }

  schemaChanged(): void {
    for (const l of this.schemaListeners) {
      try {
        l();
      } catch (e) {
        this.deps.logger.warn({ err: (e as Error).message }, 'a schema change listener failed');
      }
    }
  }

  /** Drop cached metadata and plans (after DDL, DROP DATABASE, or a catalog change). */
  forgetColumns(): void {
    this.columnCache.clear();
    this.tableLists.clear();
    this.plans.clear();
    this.notPushedDown.clear();
    this.shapePlans.clear();
  }

  async listDatabases(principal?: StatementPrincipal): Promise<string[]> {
    const names = await this.deps.sources.names();
    const view = this.gate.view(principal);
    return view ? names.filter((n) => view.seesSource(n)) : names;
  }

  async listTables(db: string, principal?: StatementPrincipal): Promise<TableInfo[]> {
    const view = this.gate.view(principal);
    if (view && !view.seesSource(db)) throw unknownDatabase(db);
    const s = await this.deps.sources.get(db);
    const tables = await s.listTables();
    return view ? tables.filter((t) => view.seesTable(s.name, t.schema ?? s.defaultSchema, t.name)) : tables;
  }

  async listColumns(db: string, table: string, principal?: StatementPrincipal): Promise<ColumnInfo[]> {
    const view = this.gate.view(principal);
    if (view && !view.seesSource(db)) throw unknownDatabase(db);
    const s = await this.deps.sources.get(db);
    const cols = await s.listColumns(table);
    if (!view) return cols;
    if (!view.seesTable(s.name, s.defaultSchema, table))
      throw new SqlError(ErrorCode.UNKNOWN_TABLE, `Table '${s.name}.${table}' doesn't exist`);
    return view.visibleColumns(s.name, s.defaultSchema, table, cols);
  }

  async close(): Promise<void> {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    this.deps.policy?.close?.();
    await this.deps.kb?.close?.();
    await this.deps.sources.close();
    this.deps.local.close();
  }
}

/** A statement pushed down whole: the source, the SQL it runs, the statement's MySQL column labels. */
interface PushdownTarget {
  source: Source;
  sql: string;
  labels: string[] | null;
}

/** A statement's options inside the engine: what the face gave, plus what traces record. */
/** `kbs`: the knowledge bases the statement names (kb-names.ts), reported for the audit log. */
type RunExecOptions = ExecOptions & {
  fragments?: FragmentReport[];
  kbs?: string[];
  /** Who runs it (the context's principal), for what runs below the statement (information_schema rows). */
  principal?: StatementPrincipal;
  /** The policy rules that decided its accesses (audit log). */
  policyRules?: string[];
  /** The policy rule that refused it (metrics). */
  policyDenied?: string;
};

function unknownDatabase(db: string): SqlError {
  return new SqlError(ErrorCode.UNKNOWN_DATABASE, `Unknown database '${db}'`);
}

/** Who a process-list statement asks for: its caller (an internal statement sees everything). */
function viewer(opts: ExecOptions): { principal: string | null } {
  return { principal: opts.caller?.principal ?? null };
}

/** The tighter of the server's limit and the call's (0: none). */
function statementLimit(server: number, call: number | undefined): number {
  if (!call || call <= 0) return server;
  return server ? Math.min(server, call) : call;
}

function assertReadOnly(stmt: Statement): void {
  if (READ_KINDS.has(stmt.kind)) return;
  if (stmt.kind === 'sql' && stmt.ast.type === 'select') return;
  throw new SqlError(
    ErrorCode.READ_ONLY,
    'The server is in read-only mode: only SELECT, SHOW, DESCRIBE and EXPLAIN are allowed',
  );
}

/**
 * Names result columns as MySQL would (parse/labels.ts): what a source or the local engine
 * calls them is its own recompiled text, truncated by PostgreSQL past 63 bytes.
 */
function relabel(stream: QueryStream, labels: string[] | null | undefined): QueryStream {
  if (!labels || labels.length !== stream.columns.length) return stream;
  if (stream.columns.every((c, i) => c.name === labels[i])) return stream;
  return {
    columns: stream.columns.map((c, i) => ({ ...c, name: labels[i] })),
    batches: stream.batches,
    cancel: () => stream.cancel(),
  };
}

/**
 * The rows after a cut: what was left of the batch that was cut, then the batches still
 * to come from the statement's iterator (encoded, progress reported as before).
 */
async function* restOf(
  after: unknown[][],
  more: AsyncIterator<unknown[][]> | null,
  columns: FieldInfo[],
  onProgress: ((rows: number) => void) | undefined,
  read: number,
): AsyncGenerator<unknown[][]> {
  if (after.length) yield after;
  if (!more) return;
  for (let n = await more.next(); !n.done; n = await more.next()) {
    read += n.value.length;
    onProgress?.(read);
    yield encodeRows(columns, n.value);
  }
}

async function* once<T>(x: T): AsyncGenerator<T> {
  yield x;
}

/** Errors a knowledge base made on another replica a moment ago can cause: no database selected, no such table. */
const KB_MAYBE = new Set<number>([1046, ErrorCode.UNKNOWN_TABLE]);

/** A statement that only reads: a SELECT, or EXPLAIN of one (the access policy's filters and masks apply to these). */
function readsOnly(stmt: Statement): boolean {
  if (stmt.kind === 'explain') return readsOnly(stmt.inner);
  return stmt.kind === 'sql' && stmt.ast.type === 'select';
}
