/**
 * The MySQL 8 function library, one entry per function: a few calls with literals and with
 * fixture columns (fixture.ts), batched into one SELECT. functions.test.ts runs each SELECT
 * on MariaDB (the reference) and, compiled, on every pushdown target; function-doc.ts turns
 * the same list into docs/reference/functions.md (which target runs each function, which
 * answers 1235), so the reference cannot drift from the code.
 *
 * `reference`: what MariaDB runs instead where it lacks the MySQL 8 spelling (or answers
 * differently from MySQL 8). `known`: a difference from MySQL on one target, reported (todo)
 * instead of failing, and printed in the reference as a note. Nondeterministic functions
 * (NOW, RAND, UUID) are called inside a deterministic test of their result.
 */

export type Group =
  | 'string'
  | 'regexp'
  | 'numeric'
  | 'date and time'
  | 'control flow'
  | 'cast'
  | 'JSON'
  | 'aggregate'
  | 'window'
  | 'bit'
  | 'hash and encoding'
  | 'network';

export type MatrixTarget = 'postgres' | 'duckdb' | 'sqlite' | 'mysql';

export interface FunctionCase {
  name: string;
  group: Group;
  /** The SELECT list: calls of the function. */
  calls: string;
  /** The FROM table of the fixture (none: a SELECT of literals). */
  from?: string;
  /** The rest of the statement after FROM (WHERE, GROUP BY). */
  tail?: string;
  reference?: string;
  /** Rows compared in order (the statement orders them totally). */
  ordered?: boolean;
  known?: Partial<Record<MatrixTarget, string>>;
}

const c = (
  name: string,
  group: Group,
  calls: string,
  from?: string,
  more: Partial<FunctionCase> = {},
): FunctionCase => ({ name, group, calls, from, ...more });

const S: Group = 'string';
const N: Group = 'numeric';
const D: Group = 'date and time';

export const FUNCTIONS: FunctionCase[] = [
  // --- strings
  c('ASCII', S, "ASCII(name), ASCII(''), ASCII('A'), ASCII('é'), ASCII(NULL)", 'customers'),
  c('BIN', S, 'BIN(qty), BIN(12), BIN(-1), BIN(NULL)', 'orders'),
  c('BIT_LENGTH', S, "BIT_LENGTH(name), BIT_LENGTH('ab')", 'customers'),
  c('CHAR', S, 'CHAR(77, 121, 83, 81, 76), CHAR(qty + 65)', 'orders'),
  c('CHAR_LENGTH', S, "CHAR_LENGTH(name), CHAR_LENGTH('zoë'), CHAR_LENGTH(NULL)", 'customers'),
  c('CHARACTER_LENGTH', S, "CHARACTER_LENGTH(city), CHARACTER_LENGTH('abc')", 'customers'),
  c('CONCAT', S, "CONCAT(name, '-', id), CONCAT('a', NULL), CONCAT(city)", 'customers'),
  c('CONCAT_WS', S, "CONCAT_WS(',', name, city, email), CONCAT_WS('-', 'a', NULL, 'b')", 'customers'),
  c('ELT', S, "ELT(qty, 'a', 'b', 'c'), ELT(2, 'x', 'y')", 'orders'),
  c('EXPORT_SET', S, "EXPORT_SET(5, 'Y', 'N', ',', 4), EXPORT_SET(qty, '1', '0', '', 4)", 'orders'),
  c('FIELD', S, "FIELD(status, 'pending', 'shipped'), FIELD('b', 'a', 'b')", 'orders'),
  c('FIND_IN_SET', S, "FIND_IN_SET('b', 'a,b,c'), FIND_IN_SET(status, 'pending,shipped')", 'orders'),
  c('FORMAT', S, 'FORMAT(amount, 2), FORMAT(1234567.891, 1), FORMAT(0.125, 2), FORMAT(NULL, 2)', 'orders'),
  // A DOUBLE exactly halfway rounds to even (MySQL's my_double_round); a DECIMAL half away from zero.
  c(
    'FORMAT (a DOUBLE)',
    S,
    'FORMAT(discount, 0), FORMAT(CAST(2.5 AS DOUBLE), 0), FORMAT(CAST(0.125 AS DOUBLE), 2), FORMAT(discount * 10, 1)',
    'orders',
  ),
  c('FROM_BASE64', S, "FROM_BASE64('YWJj'), FROM_BASE64(TO_BASE64(name))", 'customers'),
  c('HEX', S, "HEX(name), HEX(255), HEX('abc'), HEX(qty)", 'customers', {
    tail: ', orders WHERE orders.id = 101',
  }),
  c(
    'INSERT',
    S,
    "INSERT(name, 2, 3, 'XY'), INSERT('Quadratic', 3, 4, 'What'), INSERT('abc', 10, 1, 'z')",
    'customers',
  ),
  c('INSTR', S, "INSTR(name, 'e'), INSTR('foobar', 'BAR')", 'customers'),
  c('LCASE', S, "LCASE(name), LCASE('ABC')", 'customers'),
  c('LEFT', S, "LEFT(name, 3), LEFT('abc', 0), LEFT(city, id)", 'customers'),
  c('LENGTH', S, "LENGTH(name), LENGTH('zoë'), LENGTH('')", 'customers'),
  c('LOCATE', S, "LOCATE('a', name), LOCATE('bar', 'foobarbar', 5), LOCATE('x', 'abc')", 'customers'),
  c('LOWER', S, "LOWER(name), LOWER('ÀB')", 'customers'),
  c('LPAD', S, "LPAD(name, 8, '*'), LPAD('hi', 1, '?'), LPAD(id, 3, '0')", 'customers'),
  c('LTRIM', S, "LTRIM('  x  '), LTRIM(city)", 'customers'),
  c('MAKE_SET', S, "MAKE_SET(5, 'a', 'b', 'c'), MAKE_SET(qty, 'x', 'y', 'z')", 'orders'),
  c('MID', S, 'MID(name, 2, 3), MID(email, -5, 2)', 'customers'),
  c('OCT', S, 'OCT(qty), OCT(64), OCT(-1), OCT(-qty), OCT(0), OCT(NULL)', 'orders'),
  c('OCTET_LENGTH', S, "OCTET_LENGTH(name), OCTET_LENGTH('zoë')", 'customers'),
  c('ORD', S, "ORD(name), ORD('2'), ORD('é'), ORD('€x'), ORD(''), ORD(NULL)", 'customers'),
  c('POSITION', S, "POSITION('a' IN name), POSITION('z' IN 'abc')", 'customers'),
  c('QUOTE', S, "QUOTE(name), QUOTE('Don''t')", 'customers'),
  c('REPEAT', S, "REPEAT(name, 2), REPEAT('ab', 0), REPEAT('-', 3)", 'customers'),
  c('REPLACE', S, "REPLACE(name, 'e', 'E'), REPLACE('www.mysql.com', 'w', 'Ww')", 'customers'),
  c('REVERSE', S, "REVERSE(name), REVERSE('abc')", 'customers'),
  c('RIGHT', S, "RIGHT(name, 2), RIGHT('abc', 5)", 'customers'),
  c('RPAD', S, "RPAD(name, 7, '.'), RPAD('hi', 1, '?')", 'customers'),
  c('RTRIM', S, "RTRIM(name), RTRIM('x  ')", 'customers'),
  c('SOUNDEX', S, "SOUNDEX(name), SOUNDEX('Robert')", 'customers'),
  c('SPACE', S, "SPACE(qty), CONCAT('[', SPACE(2), ']')", 'orders'),
  c('STRCMP', S, "STRCMP(name, 'bob'), STRCMP('a', 'B'), STRCMP('b', 'a')", 'customers'),
  c('SUBSTR', S, 'SUBSTR(name, 2), SUBSTR(name, -3, 2)', 'customers'),
  c(
    'SUBSTRING',
    S,
    "SUBSTRING(name, 2, 3), SUBSTRING('Sakila' FROM -4 FOR 2), SUBSTRING(name, 0)",
    'customers',
  ),
  c(
    'SUBSTRING_INDEX',
    S,
    "SUBSTRING_INDEX(email, '@', 1), SUBSTRING_INDEX('www.mysql.com', '.', -2)",
    'customers',
  ),
  c('TO_BASE64', S, "TO_BASE64(name), TO_BASE64('abc')", 'customers'),
  c(
    'TRIM',
    S,
    "TRIM(name), TRIM(LEADING 'x' FROM 'xxabcxx'), TRIM(BOTH 'x' FROM 'xxabcxx'), TRIM(TRAILING FROM city)",
    'customers',
  ),
  c(
    'TRIM (of several characters)',
    S,
    "TRIM(TRAILING 'xy' FROM 'abcxyxy'), TRIM(BOTH 'ab' FROM 'ababcab'), TRIM(LEADING 'aa' FROM 'aaaab'), TRIM(TRAILING 'aa' FROM 'baaa'), TRIM('.*' FROM '.*x.*'), TRIM(BOTH 'AB' FROM 'abxAB'), TRIM(LEADING 'al' FROM name)",
    'customers',
  ),
  c('UCASE', S, "UCASE(city), UCASE('abc')", 'customers'),
  c('UNHEX', S, "UNHEX('616263'), UNHEX(HEX(name))", 'customers'),
  c('UPPER', S, "UPPER(city), UPPER('abc'), UPPER('zoë')", 'customers'),
  // --- regular expressions
  c('REGEXP_INSTR', 'regexp', "REGEXP_INSTR(name, '[aeiou]'), REGEXP_INSTR('dog cat', 'cat')", 'customers'),
  c('REGEXP_LIKE', 'regexp', "REGEXP_LIKE(name, '^a'), REGEXP_LIKE('abc', 'B')", 'customers', {
    reference: "SELECT name REGEXP '^a', 'abc' REGEXP 'B' FROM customers",
  }),
  c(
    'REGEXP_REPLACE',
    'regexp',
    "REGEXP_REPLACE(name, '[aeiou]', '*'), REGEXP_REPLACE('a1b22', '[0-9]+', '#')",
    'customers',
  ),
  c(
    'REGEXP_SUBSTR',
    'regexp',
    "REGEXP_SUBSTR(email, '[a-z]+'), REGEXP_SUBSTR('abc123', '[0-9]+')",
    'customers',
  ),
  // --- numbers
  c('ABS', N, 'ABS(-qty), ABS(-2.5), ABS(discount - 1)', 'orders'),
  c('ACOS', N, 'ACOS(1), ACOS(discount), ACOS(2)', 'orders'),
  c('ASIN', N, 'ASIN(0.5), ASIN(discount)', 'orders'),
  c('ATAN', N, 'ATAN(2), ATAN(-2, 2), ATAN(qty)', 'orders'),
  c('ATAN2', N, 'ATAN2(-2, 2), ATAN2(qty, 3)', 'orders'),
  c('CEIL', N, 'CEIL(amount), CEIL(-1.5), CEIL(discount)', 'orders'),
  c('CEILING', N, 'CEILING(1.23), CEILING(amount)', 'orders'),
  c('CONV', N, "CONV('a', 16, 2), CONV(qty, 10, 16), CONV('-17', 10, -18)", 'orders'),
  c('COS', N, 'COS(0), COS(qty)', 'orders'),
  c('COT', N, 'COT(1), COT(qty + 1)', 'orders'),
  c('CRC32', 'hash and encoding', "CRC32('MySQL'), CRC32(status)", 'orders'),
  c('DEGREES', N, 'DEGREES(PI()), DEGREES(qty)', 'orders'),
  c('DIV', N, 'qty DIV 2, 7 DIV -2, amount DIV 3', 'orders'),
  c('EXP', N, 'EXP(1), EXP(qty), EXP(-1)', 'orders'),
  c('FLOOR', N, 'FLOOR(amount), FLOOR(-1.5), FLOOR(discount * 10)', 'orders'),
  c('LN', N, 'LN(2), LN(qty), LN(0)', 'orders'),
  c('LOG', N, 'LOG(2), LOG(2, 65536), LOG(qty), LOG(10, amount)', 'orders'),
  c('LOG10', N, 'LOG10(100), LOG10(amount)', 'orders'),
  c('LOG2', N, 'LOG2(65536), LOG2(qty)', 'orders'),
  c('MOD', N, 'MOD(qty, 3), MOD(29, 9), MOD(amount, 7), qty % 2, MOD(qty, 0)', 'orders'),
  c('PI', N, 'PI(), PI() * qty', 'orders'),
  c('POW', N, 'POW(2, 10), POW(qty, 2), POW(2, -1)', 'orders'),
  c('POWER', N, 'POWER(2, 3), POWER(amount, 0)', 'orders'),
  c('RADIANS', N, 'RADIANS(90), RADIANS(qty)', 'orders'),
  c('RAND', N, 'RAND() >= 0 AND RAND() < 1', 'orders'),
  c('RAND (with a seed)', N, 'RAND(qty) BETWEEN 0 AND 1', 'orders'),
  c(
    'ROUND',
    N,
    'ROUND(amount), ROUND(amount, 1), ROUND(-2.5), ROUND(2.5), ROUND(1234.5678, -2), ROUND(0.125, 2), ROUND(amount, -1)',
    'orders',
  ),
  c(
    'ROUND (a DOUBLE)',
    N,
    "ROUND(discount, 1), ROUND(CAST(0.125 AS DOUBLE), 2), ROUND(CAST(2.5 AS DOUBLE)), ROUND(CAST(-3.5 AS DOUBLE)), ROUND(CAST(250 AS DOUBLE), -2), ROUND('2.5'), ROUND(discount * 100)",
    'orders',
  ),
  c('SIGN', N, 'SIGN(qty - 2), SIGN(-0.5), SIGN(0)', 'orders'),
  c('SIN', N, 'SIN(0), SIN(qty)', 'orders'),
  c('SQRT', N, 'SQRT(4), SQRT(amount), SQRT(-1)', 'orders'),
  c('TAN', N, 'TAN(1), TAN(qty)', 'orders'),
  c(
    'TRUNCATE',
    N,
    'TRUNCATE(amount, 1), TRUNCATE(1.999, 0), TRUNCATE(-1.999, 1), TRUNCATE(122, -2)',
    'orders',
  ),
  // --- dates and times
  c('ADDDATE', D, "ADDDATE(joined, 31), ADDDATE('2024-01-31', INTERVAL 1 MONTH)", 'customers'),
  c('ADDTIME', D, "ADDTIME(ordered_at, '01:30:00'), ADDTIME('2024-01-01 23:59:59', '0:0:1')", 'orders'),
  c(
    'CONVERT_TZ',
    D,
    "CONVERT_TZ(ordered_at, '+00:00', '+02:00'), CONVERT_TZ('2024-01-01 12:00:00', '+01:00', '-03:00')",
    'orders',
  ),
  c('CURDATE', D, "CURDATE() > '2020-01-01', CURDATE() = CURRENT_DATE()"),
  c('CURRENT_DATE', D, "CURRENT_DATE > '2020-01-01'"),
  c('CURRENT_TIME', D, 'CURRENT_TIME() IS NOT NULL'),
  c('CURRENT_TIMESTAMP', D, "CURRENT_TIMESTAMP > '2020-01-01'"),
  c('CURTIME', D, 'CURTIME() IS NOT NULL'),
  c('DATE', D, "DATE(ordered_at), DATE('2024-02-29 10:11:12')", 'orders'),
  c(
    'DATE_ADD',
    D,
    "DATE_ADD(joined, INTERVAL 1 DAY), DATE_ADD(ordered_at, INTERVAL 2 HOUR), DATE_ADD(joined, INTERVAL 1 HOUR), DATE_ADD('2024-01-31', INTERVAL 1 MONTH), DATE_ADD(joined, INTERVAL customers.id DAY)",
    'customers',
    {
      tail: ' JOIN orders ON orders.customer_id = customers.id',
    },
  ),
  c(
    'DATE_FORMAT',
    D,
    "DATE_FORMAT(ordered_at, '%Y-%m-%d %H:%i:%s'), DATE_FORMAT(ordered_at, '%W %M %e %j %a %b %c %y'), DATE_FORMAT(ordered_at, '%w %p %r %T %h %l %k %I %S %f %%')",
    'orders',
  ),
  c('DATE_FORMAT (%D)', D, "DATE_FORMAT(ordered_at, '%D of %M')", 'orders'),
  c('DATE_FORMAT (week specifiers)', D, "DATE_FORMAT(ordered_at, '%u %U %v %V %x %X')", 'orders'),
  c(
    'DATE_SUB',
    D,
    "DATE_SUB(joined, INTERVAL 1 MONTH), DATE_SUB('2024-03-31', INTERVAL 1 MONTH), DATE_SUB(ordered_at, INTERVAL 90 MINUTE)",
    'customers',
    {
      tail: ' JOIN orders ON orders.customer_id = customers.id',
    },
  ),
  c(
    'DATEDIFF',
    D,
    "DATEDIFF(ordered_at, '2021-01-01'), DATEDIFF('2024-03-01', '2024-02-01 23:59:59')",
    'orders',
  ),
  c('DAY', D, "DAY(ordered_at), DAY('2024-02-29')", 'orders'),
  c('DAYNAME', D, "DAYNAME(ordered_at), DAYNAME('2024-02-29')", 'orders'),
  c('DAYOFMONTH', D, 'DAYOFMONTH(joined)', 'customers'),
  c('DAYOFWEEK', D, "DAYOFWEEK(joined), DAYOFWEEK('2024-03-03')", 'customers'),
  c('DAYOFYEAR', D, "DAYOFYEAR(joined), DAYOFYEAR('2024-12-31')", 'customers'),
  c(
    'EXTRACT',
    D,
    'EXTRACT(YEAR FROM ordered_at), EXTRACT(MONTH FROM ordered_at), EXTRACT(HOUR FROM ordered_at), EXTRACT(YEAR_MONTH FROM ordered_at), EXTRACT(DAY_HOUR FROM ordered_at), EXTRACT(QUARTER FROM ordered_at), EXTRACT(WEEK FROM ordered_at)',
    'orders',
  ),
  c('FROM_DAYS', D, 'FROM_DAYS(730669), FROM_DAYS(TO_DAYS(joined) + 1)', 'customers'),
  c('FROM_UNIXTIME', D, "FROM_UNIXTIME(1700000000), FROM_UNIXTIME(1700000000, '%Y %d')"),
  c(
    'GET_FORMAT',
    D,
    "GET_FORMAT(DATE, 'ISO'), GET_FORMAT(DATETIME, 'USA'), GET_FORMAT(TIME, 'eur'), GET_FORMAT(TIMESTAMP, 'INTERNAL'), GET_FORMAT(DATE, 'xx')",
  ),
  c('HOUR', D, "HOUR(ordered_at), HOUR('10:05:03'), HOUR(joined)", 'orders', {
    tail: ' JOIN customers ON orders.customer_id = customers.id',
  }),
  c('LAST_DAY', D, "LAST_DAY(joined), LAST_DAY('2024-02-05'), LAST_DAY(ordered_at)", 'orders', {
    tail: ' JOIN customers ON orders.customer_id = customers.id',
  }),
  c('LOCALTIME', D, "LOCALTIME() > '2020-01-01'"),
  c('LOCALTIMESTAMP', D, "LOCALTIMESTAMP() > '2020-01-01'"),
  c('MAKEDATE', D, 'MAKEDATE(2024, 60), MAKEDATE(YEAR(joined), 1), MAKEDATE(2023, 0)', 'customers'),
  c('MAKETIME', D, 'MAKETIME(12, 15, 30), MAKETIME(qty, 0, 0)', 'orders'),
  c('MICROSECOND', D, "MICROSECOND('12:00:00.123456'), MICROSECOND(ordered_at)", 'orders'),
  c('MINUTE', D, "MINUTE(ordered_at), MINUTE('2024-01-01 10:05:03')", 'orders'),
  c('MONTH', D, "MONTH(joined), MONTH('2024-02-29')", 'customers'),
  c('MONTHNAME', D, "MONTHNAME(joined), MONTHNAME('2024-02-29')", 'customers'),
  c('NOW', D, "NOW() > '2020-01-01', NOW() = CURRENT_TIMESTAMP()"),
  c('PERIOD_ADD', D, 'PERIOD_ADD(202401, 2), PERIOD_ADD(2312, qty)', 'orders'),
  c('PERIOD_DIFF', D, 'PERIOD_DIFF(202402, 202311), PERIOD_DIFF(202401, 202401 - qty)', 'orders'),
  c('QUARTER', D, "QUARTER(joined), QUARTER('2024-11-30')", 'customers'),
  c('SEC_TO_TIME', D, 'SEC_TO_TIME(3661), SEC_TO_TIME(qty * 100)', 'orders'),
  c('SECOND', D, "SECOND(ordered_at), SECOND('10:05:03')", 'orders'),
  c(
    'STR_TO_DATE',
    D,
    "STR_TO_DATE('01,5,2013', '%d,%m,%Y'), STR_TO_DATE('10:11 2024/03/04', '%H:%i %Y/%m/%d')",
  ),
  c(
    'STR_TO_DATE (a week, as Metabase groups by week)',
    D,
    "STR_TO_DATE(CONCAT(YEARWEEK(ordered_at), ' Sunday'), '%X%V %W'), STR_TO_DATE('202101 Monday', '%x%v %W'), STR_TO_DATE('202053 Saturday', '%X%V %W'), STR_TO_DATE('202453 Sunday', '%x%v %W'), STR_TO_DATE('202401 Tuesday', '%X%V %W')",
    'orders',
  ),
  c('STR_TO_DATE (impossible date)', D, "STR_TO_DATE('2024-02-30', '%Y-%m-%d')", undefined, {
    // MariaDB answers 2024-02-30; MySQL 8 answers NULL.
    reference: 'SELECT NULL',
  }),
  c('SUBDATE', D, "SUBDATE(joined, 31), SUBDATE('2024-03-31', INTERVAL 1 MONTH)", 'customers'),
  c('SUBTIME', D, "SUBTIME(ordered_at, '01:00:00'), SUBTIME('2024-01-01 00:00:00', '0:0:1')", 'orders'),
  c('SYSDATE', D, "SYSDATE() > '2020-01-01'"),
  c('TIME', D, "TIME(ordered_at), TIME('2024-01-01 10:11:12')", 'orders'),
  c('TIME_FORMAT', D, "TIME_FORMAT(ordered_at, '%H:%i'), TIME_FORMAT('10:11:12', '%h %p')", 'orders'),
  c('TIME_TO_SEC', D, "TIME_TO_SEC('01:00:05'), TIME_TO_SEC(ordered_at)", 'orders'),
  c('TIMEDIFF', D, "TIMEDIFF(ordered_at, '2021-01-01 00:00:00'), TIMEDIFF('10:00:00', '09:30:15')", 'orders'),
  c('TIMESTAMP', D, "TIMESTAMP(joined), TIMESTAMP('2024-01-01', '10:00:00')", 'customers'),
  c(
    'TIMESTAMPADD',
    D,
    "TIMESTAMPADD(MINUTE, 90, ordered_at), TIMESTAMPADD(MONTH, qty, '2024-01-31')",
    'orders',
  ),
  c(
    'TIMESTAMPDIFF',
    D,
    "TIMESTAMPDIFF(MONTH, '2020-01-31', ordered_at), TIMESTAMPDIFF(HOUR, ordered_at, '2024-01-01'), TIMESTAMPDIFF(YEAR, '2000-02-29', '2024-02-28')",
    'orders',
  ),
  c('TO_DAYS', D, "TO_DAYS(joined), TO_DAYS('2024-01-01')", 'customers'),
  c('TO_SECONDS', D, "TO_SECONDS(ordered_at), TO_SECONDS('2024-01-01')", 'orders'),
  c(
    'UNIX_TIMESTAMP',
    D,
    "UNIX_TIMESTAMP(ordered_at), UNIX_TIMESTAMP('2024-01-01 00:00:00'), UNIX_TIMESTAMP() > 1600000000",
    'orders',
  ),
  c('UTC_DATE', D, "UTC_DATE() > '2020-01-01'"),
  c('UTC_TIME', D, 'UTC_TIME() IS NOT NULL, HOUR(UTC_TIME()) BETWEEN 0 AND 23'),
  c('UTC_TIMESTAMP', D, "UTC_TIMESTAMP() > '2020-01-01'"),
  c(
    'WEEK (modes 1, 2, 4-7)',
    D,
    "WEEK('2024-01-01', 1), WEEK(joined, 1), WEEK(joined, 2), WEEK(joined, 4), WEEK(joined, 5), WEEK(joined, 6), WEEK(joined, 7), WEEK('2021-01-01', 2), WEEK('2021-01-01', 6), WEEK('2021-01-01', 7), WEEK('2019-12-30', 6), WEEK('2024-12-31', 4), WEEK('2023-01-01', 5), WEEK('2020-12-31', 1)",
    'customers',
  ),
  c('WEEK', D, "WEEK(joined), WEEK(joined, 3), WEEK('2024-01-01', 3), WEEK(ordered_at, 0)", 'orders', {
    tail: ' JOIN customers ON orders.customer_id = customers.id',
  }),
  c('WEEKDAY', D, "WEEKDAY(joined), WEEKDAY('2024-03-03')", 'customers'),
  c('WEEKOFYEAR', D, "WEEKOFYEAR(joined), WEEKOFYEAR('2024-12-30')", 'customers'),
  c('YEAR', D, "YEAR(joined), YEAR('2024-02-29')", 'customers'),
  c('YEARWEEK', D, "YEARWEEK(joined), YEARWEEK('2024-12-30'), YEARWEEK(joined, 3)", 'customers'),
  // --- control flow
  c(
    'CASE',
    'control flow',
    "CASE WHEN qty > 2 THEN 'big' WHEN qty > 0 THEN 'small' ELSE 'none' END, CASE status WHEN 'shipped' THEN 1 ELSE 0 END",
    'orders',
  ),
  c('COALESCE', 'control flow', 'COALESCE(note, status), COALESCE(NULL, NULL, 3)', 'orders'),
  c(
    'GREATEST',
    'control flow',
    "GREATEST(qty, 2), GREATEST('a', 'B', 'c'), GREATEST(1, NULL), GREATEST(status, 'PENDING ')",
    'orders',
  ),
  c('IF', 'control flow', "IF(qty > 2, 'many', 'few'), IF(NULL, 1, 2)", 'orders'),
  c('IFNULL', 'control flow', "IFNULL(note, 'none'), IFNULL(discount, 0)", 'orders'),
  c('ISNULL', 'control flow', 'ISNULL(note), ISNULL(1)', 'orders'),
  c(
    'LEAST',
    'control flow',
    "LEAST(qty, 2), LEAST('a', 'B'), LEAST(1, NULL), LEAST(status, 'Pending')",
    'orders',
  ),
  c('NULLIF', 'control flow', "NULLIF(qty, 1), NULLIF(status, 'SHIPPED')", 'orders'),
  // --- casts
  c(
    'CAST',
    'cast',
    "CAST(amount AS SIGNED), CAST('12abc' AS SIGNED), CAST(qty AS CHAR), CAST(amount AS DECIMAL(10, 1)), CAST('2024-02-29' AS DATE), CAST(ordered_at AS DATE), CAST(qty AS DOUBLE)",
    'orders',
  ),
  c(
    'CAST text AS DATE / DATETIME (impossible dates and MySQL forms)',
    'cast',
    "CAST('2023-02-29' AS DATE), CAST('2024/1/5' AS DATE), CAST('20240115' AS DATE), CAST('2024-13-01' AS DATE), CAST('2024-01-31T23:59:59' AS DATETIME), CAST('2024-04-31 10:00:00' AS DATETIME), CAST(CONCAT('2024-02-', qty + 27) AS DATE)",
    'orders',
  ),
  c(
    'CAST AS UNSIGNED',
    'cast',
    "CAST(-1 AS UNSIGNED), CAST(qty AS UNSIGNED), CAST(qty - 3 AS UNSIGNED), CAST('-5' AS UNSIGNED), CONVERT(-2, UNSIGNED)",
    'orders',
  ),
  c('CONVERT', 'cast', "CONVERT(qty, CHAR), CONVERT('7', SIGNED), CONVERT(name USING utf8mb4)", 'orders', {
    tail: ' JOIN customers ON orders.customer_id = customers.id',
  }),
  c(
    'BINARY',
    'cast',
    "BINARY 'a' = 'A', name = BINARY 'alice', BINARY name = 'Alice', CAST('x' AS BINARY) = 'X', 'a' = 'A' COLLATE utf8mb4_bin, BINARY('b') = 'b', BINARY name < 'b'",
    'customers',
  ),
  // --- JSON
  c('JSON_ARRAY', 'JSON', "JSON_ARRAY(id, name), JSON_ARRAY(), JSON_ARRAY(1, 'a', NULL)", 'customers'),
  c(
    'JSON_ARRAY_APPEND',
    'JSON',
    "JSON_ARRAY_APPEND('[1, 2]', '$', 3), JSON_ARRAY_APPEND(profile, '$.tags', 'z')",
    'customers',
    {
      // MariaDB answers NULL where the path finds nothing; MySQL leaves the document as it is.
      reference:
        "SELECT JSON_ARRAY_APPEND('[1, 2]', '$', 3), IF(JSON_CONTAINS_PATH(profile, 'one', '$.tags'), JSON_ARRAY_APPEND(profile, '$.tags', 'z'), profile) FROM customers",
    },
  ),
  c(
    'JSON_CONTAINS',
    'JSON',
    "JSON_CONTAINS(profile, '\"vip\"', '$.tags'), JSON_CONTAINS('[1, 2]', '1')",
    'customers',
    {
      // MariaDB answers 0 where the path finds nothing; MySQL answers NULL.
      reference:
        "SELECT IF(JSON_CONTAINS_PATH(profile, 'one', '$.tags'), JSON_CONTAINS(profile, '\"vip\"', '$.tags'), NULL), JSON_CONTAINS('[1, 2]', '1') FROM customers",
    },
  ),
  c(
    'JSON_CONTAINS_PATH',
    'JSON',
    "JSON_CONTAINS_PATH(profile, 'one', '$.age', '$.x'), JSON_CONTAINS_PATH(profile, 'all', '$.age', '$.tags')",
    'customers',
  ),
  c('JSON_DEPTH', 'JSON', "JSON_DEPTH(profile), JSON_DEPTH('[]'), JSON_DEPTH('[1, [2]]')", 'customers'),
  c(
    'JSON_EXTRACT',
    'JSON',
    "JSON_EXTRACT(profile, '$.age'), JSON_EXTRACT(profile, '$.tags[0]'), JSON_EXTRACT(profile, '$.address.city'), JSON_EXTRACT('{\"a\": [1, 2]}', '$.a')",
    'customers',
  ),
  c(
    'JSON_INSERT',
    'JSON',
    "JSON_INSERT(profile, '$.age', 1, '$.new', 2), JSON_INSERT('{}', '$.a', 'x')",
    'customers',
  ),
  c('JSON_KEYS', 'JSON', 'JSON_KEYS(profile), JSON_KEYS(\'{"a": 1, "b": 2}\')', 'customers'),
  c(
    'JSON_LENGTH',
    'JSON',
    "JSON_LENGTH(profile), JSON_LENGTH(profile, '$.tags'), JSON_LENGTH('[1, 2, 3]')",
    'customers',
  ),
  c(
    'JSON_MERGE_PATCH',
    'JSON',
    'JSON_MERGE_PATCH(profile, \'{"age": null, "z": 1}\'), JSON_MERGE_PATCH(\'{"a": 1}\', \'{"b": 2}\')',
    'customers',
  ),
  c(
    'JSON_MERGE_PRESERVE',
    'JSON',
    "JSON_MERGE_PRESERVE('[1, 2]', '[3]'), JSON_MERGE_PRESERVE('{\"a\": 1}', '{\"a\": 2}')",
  ),
  c('JSON_OBJECT', 'JSON', "JSON_OBJECT('id', id, 'name', name), JSON_OBJECT()", 'customers'),
  c('JSON_QUOTE', 'JSON', "JSON_QUOTE(name), JSON_QUOTE('a\"b')", 'customers'),
  c('JSON_REMOVE', 'JSON', "JSON_REMOVE(profile, '$.age'), JSON_REMOVE('[1, 2, 3]', '$[1]')", 'customers'),
  c(
    'JSON_REPLACE',
    'JSON',
    "JSON_REPLACE(profile, '$.age', 0, '$.none', 1), JSON_REPLACE('{\"a\": 1}', '$.a', 'x')",
    'customers',
  ),
  c(
    'JSON_SEARCH',
    'JSON',
    "JSON_SEARCH(profile, 'one', 'vip'), JSON_SEARCH('[\"a\", \"b\"]', 'all', 'b')",
    'customers',
  ),
  c('JSON_SET', 'JSON', "JSON_SET(profile, '$.age', 1, '$.new', 2), JSON_SET('{}', '$.a', 'x')", 'customers'),
  c(
    'JSON_TYPE',
    'JSON',
    "JSON_TYPE(profile), JSON_TYPE(JSON_EXTRACT(profile, '$.tags')), JSON_TYPE('1')",
    'customers',
  ),
  c(
    'JSON_UNQUOTE',
    'JSON',
    "JSON_UNQUOTE(JSON_EXTRACT(profile, '$.address.city')), JSON_UNQUOTE('\"a\"')",
    'customers',
  ),
  c('JSON_VALID', 'JSON', "JSON_VALID(profile), JSON_VALID('{'), JSON_VALID('[1]')", 'customers'),
  c(
    'JSON_VALUE',
    'JSON',
    "JSON_VALUE(profile, '$.age'), JSON_VALUE(profile, '$.address.zip'), JSON_VALUE(profile, '$.address'), JSON_VALUE(profile, '$.address.city'), JSON_VALUE('{\"a\": null, \"b\": [1], \"c\": 1.5}', '$.a'), JSON_VALUE('{\"b\": [1]}', '$.b'), JSON_VALUE('{\"c\": 1.5}', '$.c')",
    'customers',
  ),
  // --- aggregates
  c('AVG', 'aggregate', 'customer_id, AVG(amount), AVG(DISTINCT qty)', 'orders', {
    tail: ' GROUP BY customer_id',
  }),
  c('BIT_AND', 'aggregate', 'customer_id, BIT_AND(qty)', 'orders', { tail: ' GROUP BY customer_id' }),
  c('BIT_OR', 'aggregate', 'customer_id, BIT_OR(qty)', 'orders', { tail: ' GROUP BY customer_id' }),
  c('BIT_XOR', 'aggregate', 'customer_id, BIT_XOR(qty)', 'orders', { tail: ' GROUP BY customer_id' }),
  c('COUNT', 'aggregate', 'customer_id, COUNT(*), COUNT(note), COUNT(DISTINCT status)', 'orders', {
    tail: ' GROUP BY customer_id',
  }),
  c(
    'GROUP_CONCAT',
    'aggregate',
    "customer_id, GROUP_CONCAT(id ORDER BY id), GROUP_CONCAT(DISTINCT qty ORDER BY qty DESC SEPARATOR ';')",
    'orders',
    { tail: ' GROUP BY customer_id' },
  ),
  c('JSON_ARRAYAGG', 'aggregate', 'customer_id, JSON_ARRAYAGG(qty)', 'orders', {
    tail: ' WHERE customer_id <> 1 GROUP BY customer_id',
  }),
  c('JSON_OBJECTAGG', 'aggregate', 'customer_id, JSON_OBJECTAGG(id, qty)', 'orders', {
    tail: ' GROUP BY customer_id',
  }),
  c('MAX', 'aggregate', 'customer_id, MAX(amount), MAX(status)', 'orders', {
    tail: ' GROUP BY customer_id',
  }),
  c('MIN', 'aggregate', 'customer_id, MIN(amount), MIN(ordered_at), MIN(status)', 'orders', {
    tail: ' GROUP BY customer_id',
  }),
  c('STD', 'aggregate', 'STD(amount), STD(qty)', 'orders'),
  c('STDDEV', 'aggregate', 'STDDEV(amount)', 'orders'),
  c('STDDEV_POP', 'aggregate', 'STDDEV_POP(qty)', 'orders'),
  c('STDDEV_SAMP', 'aggregate', 'STDDEV_SAMP(amount)', 'orders'),
  c('SUM', 'aggregate', 'customer_id, SUM(amount), SUM(DISTINCT qty)', 'orders', {
    tail: ' GROUP BY customer_id',
  }),
  c('VAR_POP', 'aggregate', 'VAR_POP(amount)', 'orders'),
  c('VAR_SAMP', 'aggregate', 'VAR_SAMP(qty)', 'orders'),
  c('VARIANCE', 'aggregate', 'VARIANCE(amount)', 'orders'),
  // --- window functions
  c('CUME_DIST', 'window', 'id, CUME_DIST() OVER (ORDER BY qty)', 'orders'),
  c('DENSE_RANK', 'window', 'id, DENSE_RANK() OVER (ORDER BY qty)', 'orders'),
  c('FIRST_VALUE', 'window', 'id, FIRST_VALUE(id) OVER (PARTITION BY customer_id ORDER BY id)', 'orders'),
  c('LAG', 'window', 'id, LAG(qty) OVER (ORDER BY id), LAG(qty, 2, 0) OVER (ORDER BY id)', 'orders', {
    // MariaDB has no default argument.
    reference:
      'SELECT id, LAG(qty) OVER (ORDER BY id), IFNULL(LAG(qty, 2) OVER (ORDER BY id), 0) FROM orders',
  }),
  c(
    'LAST_VALUE',
    'window',
    'id, LAST_VALUE(id) OVER (PARTITION BY customer_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)',
    'orders',
  ),
  c('LEAD', 'window', 'id, LEAD(qty) OVER (ORDER BY id), LEAD(qty, 1, -1) OVER (ORDER BY id)', 'orders', {
    reference:
      'SELECT id, LEAD(qty) OVER (ORDER BY id), IFNULL(LEAD(qty, 1) OVER (ORDER BY id), -1) FROM orders',
  }),
  c(
    'NTH_VALUE',
    'window',
    'id, NTH_VALUE(id, 2) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)',
    'orders',
  ),
  c('NTILE', 'window', 'id, NTILE(3) OVER (ORDER BY id)', 'orders'),
  c('PERCENT_RANK', 'window', 'id, PERCENT_RANK() OVER (ORDER BY qty)', 'orders'),
  c('RANK', 'window', 'id, RANK() OVER (ORDER BY qty)', 'orders'),
  c('ROW_NUMBER', 'window', 'id, ROW_NUMBER() OVER (ORDER BY id)', 'orders'),
  // --- bits
  c('BIT_COUNT', 'bit', 'BIT_COUNT(qty), BIT_COUNT(255), BIT_COUNT(-1)', 'orders'),
  c('bit operators', 'bit', 'qty & 3, qty | 8, qty ^ 5, qty << 2, qty >> 1, ~0 & 255', 'orders'),
  // --- hashes and encodings
  c('MD5', 'hash and encoding', "MD5(name), MD5('abc')", 'customers'),
  c('SHA1', 'hash and encoding', "SHA1(name), SHA1('abc')", 'customers'),
  c('SHA', 'hash and encoding', "SHA('abc')"),
  c('SHA2', 'hash and encoding', "SHA2(name, 256), SHA2('abc', 224), SHA2('abc', 512)", 'customers'),
  c('UUID', 'hash and encoding', 'LENGTH(UUID()), UUID() <> UUID()'),
  // --- network addresses
  c('INET_ATON', 'network', "INET_ATON('10.0.5.9'), INET_ATON('127.1')"),
  c('INET_NTOA', 'network', 'INET_NTOA(167773449), INET_NTOA(qty)', 'orders'),
  c('IS_IPV4', 'network', "IS_IPV4('10.0.5.9'), IS_IPV4('10.0.5.256')"),
];

/** The statement of a case (`reference` aside). */
export function caseSql(f: FunctionCase): string {
  return `SELECT ${f.calls}${f.from ? ` FROM ${f.from}` : ''}${f.tail ?? ''}`;
}
