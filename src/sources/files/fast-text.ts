/**
 * The engine folds text for MySQL's case-, trailing-space- and accent-insensitive
 * comparisons as `translate(lower(rtrim(x)), '<accented letters>', '<base letters>')`.
 * On a CSV scan (a large upload before its conversion) that fold costs more than reading
 * the file: DuckDB's translate() builds its character map on every call (~1.5 µs a row;
 * COUNT(DISTINCT name) over 1M rows takes 1.5 s with it, 0.25 s without), and rtrim()
 * ~40 ns. Parquet hides both (they run once per dictionary entry); CSV does not.
 *
 * These macros, in the files source's own DuckDB only, shadow the two functions for the
 * calls where they are the identity and run DuckDB's own function for every other call:
 * - translate(s, a, b) is s when s is ASCII and the from-set `a` holds no ASCII character
 *   (the second test is on a constant and folded away);
 * - rtrim(s) is s when s is ASCII and does not end in a space (rtrim also trims Unicode
 *   spaces such as U+00A0, hence the ASCII test). rtrim(s, chars) is DuckDB's own.
 * Both take any argument as the functions do (cast to VARCHAR) and return VARCHAR.
 */
export const FAST_TEXT_MACROS = [
  `CREATE MACRO translate(s, a, b) AS
    CASE WHEN NOT regexp_matches(a, '[\\x00-\\x7F]') AND strlen(CAST(s AS VARCHAR)) = length(CAST(s AS VARCHAR))
    THEN CAST(s AS VARCHAR)
    ELSE system.main.translate(s, a, b) END`,
  `CREATE MACRO rtrim(s) AS
    CASE WHEN NOT ends_with(CAST(s AS VARCHAR), ' ') AND strlen(CAST(s AS VARCHAR)) = length(CAST(s AS VARCHAR))
    THEN CAST(s AS VARCHAR)
    ELSE system.main.rtrim(s) END,
    (s, c) AS system.main.rtrim(s, c)`,
];
