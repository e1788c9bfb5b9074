/**
 * Hand-written cross-source queries over the differential fixture: joins, aggregates,
 * window functions, subqueries, CTEs and set operations whose tables live in both sources.
 * `sql` is what MariaDB runs natively; the engine runs it with each table reference
 * (in text order) qualified by `placement`, or by the default split of differential-qualify.ts.
 */
import type { SourceName } from './differential-qualify.js';

export interface CrossQuery {
  sql: string;
  placement?: SourceName[];
  ordered?: boolean;
  /** Groups or DISTINCT values spelt differently only in case: MySQL picks one arbitrarily. */
  collationText?: boolean;
}

export const CROSS_QUERIES: CrossQuery[] = [
  // joins and aggregates
  {
    sql: 'SELECT c.city, COUNT(o.id) AS n, SUM(o.amount) AS total FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.city',
    collationText: true,
  },
  {
    sql: 'SELECT c.id, c.name, COALESCE(SUM(o.amount), 0) AS spent FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name ORDER BY spent DESC, c.id',
    ordered: true,
  },
  {
    sql: "SELECT p.category, SUM(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id WHERE o.status <> 'cancelled' GROUP BY p.category HAVING revenue > 20",
    placement: ['pg', 'my', 'my'],
    collationText: true,
  },
  {
    sql: "SELECT c.name, o.id, o.amount FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.city = 'paris' AND o.amount > 30 ORDER BY o.id",
    ordered: true,
  },
  {
    sql: 'SELECT c.name, p.title FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id WHERE c.active ORDER BY c.name, p.title',
    placement: ['my', 'pg', 'my', 'pg'],
    ordered: true,
  },
  {
    sql: 'SELECT YEAR(o.ordered_at) AS y, COUNT(DISTINCT o.customer_id) AS buyers, MAX(c.joined) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY y ORDER BY y',
    ordered: true,
  },
  // window functions over joined rows
  {
    sql: 'SELECT o.id, c.name, RANK() OVER (PARTITION BY c.city ORDER BY o.amount DESC) AS r FROM orders o JOIN customers c ON c.id = o.customer_id',
  },
  {
    sql: 'SELECT c.id, o.id, SUM(o.amount) OVER (PARTITION BY c.id ORDER BY o.ordered_at, o.id) AS running FROM customers c JOIN orders o ON o.customer_id = c.id',
  },
  {
    sql: 'SELECT p.title, oi.order_id, ROW_NUMBER() OVER (PARTITION BY p.id ORDER BY oi.order_id) AS k, LAG(oi.quantity) OVER (PARTITION BY p.id ORDER BY oi.order_id) AS prev FROM products p JOIN order_items oi ON oi.product_id = p.id',
  },
  // subqueries and CTEs
  {
    sql: "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE status = 'SHIPPED') ORDER BY name",
    ordered: true,
  },
  {
    sql: 'SELECT c.name, (SELECT MAX(o.amount) FROM orders o WHERE o.customer_id = c.id) AS biggest FROM customers c',
  },
  {
    sql: 'SELECT title FROM products p WHERE NOT EXISTS (SELECT 1 FROM order_items oi WHERE oi.product_id = p.id) OR p.price > 100',
  },
  {
    sql: 'WITH spend AS (SELECT customer_id, SUM(amount) AS s FROM orders GROUP BY customer_id) SELECT c.name, spend.s FROM customers c JOIN spend ON spend.customer_id = c.id WHERE spend.s > (SELECT AVG(s) FROM spend)',
  },
  {
    sql: 'SELECT t.city, t.n FROM (SELECT c.city, COUNT(*) AS n FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.city) t WHERE t.n >= 2',
    collationText: true,
  },
  // set operations
  {
    sql: "SELECT name AS label FROM customers WHERE active UNION SELECT title FROM products WHERE category = 'office'",
  },
  {
    sql: 'SELECT id, amount FROM orders WHERE qty >= 3 UNION ALL SELECT id, price FROM products WHERE price > 40 ORDER BY amount DESC, id',
    ordered: true,
  },
  { sql: 'SELECT customer_id FROM orders EXCEPT SELECT id FROM customers WHERE NOT active' },
  // outer joins: filters on the null side must not be pushed into its fragment
  { sql: 'SELECT c.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL' },
  {
    sql: "SELECT c.id, o.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id AND o.status = 'shipped' WHERE c.active",
  },
  {
    sql: 'SELECT o.id, c.name FROM orders o RIGHT JOIN customers c ON c.id = o.customer_id WHERE o.amount > 50 OR o.id IS NULL',
  },
  {
    sql: 'SELECT p.title, COUNT(oi.order_id), SUM(oi.quantity) FROM products p LEFT JOIN order_items oi ON oi.product_id = p.id AND oi.quantity > 1 GROUP BY p.title',
  },
  // comparisons across sources keep MySQL semantics (case, trailing spaces, types)
  {
    sql: 'SELECT a.id, b.id FROM customers a JOIN customers b ON a.city = b.city WHERE a.id <> b.id',
    placement: ['pg', 'my'],
  },
  {
    sql: 'SELECT a.id, b.id FROM orders a JOIN orders b ON a.status = b.status AND a.id < b.id',
    placement: ['my', 'pg'],
  },
  {
    sql: 'SELECT o.id, c.id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.ordered_at < c.joined + INTERVAL 60 DAY',
  },
  {
    sql: 'SELECT c.id, o.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.score < o.amount',
  },
  {
    sql: 'SELECT id FROM customers WHERE name IN (SELECT UPPER(name) FROM customers WHERE active)',
    placement: ['my', 'pg'],
  },
  // set operations mixing the sources' types
  { sql: 'SELECT active FROM customers UNION ALL SELECT active FROM customers', placement: ['pg', 'my'] },
  { sql: 'SELECT joined FROM customers UNION SELECT DATE(ordered_at) FROM orders' },
  { sql: 'SELECT score FROM customers UNION SELECT amount FROM orders WHERE amount < 50' },
  {
    sql: 'SELECT profile FROM customers WHERE id < 3 UNION ALL SELECT profile FROM customers WHERE id > 6',
    placement: ['my', 'pg'],
  },
  // stars, USING, DISTINCT, LIMIT, empty sides
  { sql: 'SELECT c.*, o.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.qty > 2' },
  {
    sql: 'SELECT a.id, a.name, b.email FROM customers a JOIN customers b USING (id)',
    placement: ['pg', 'my'],
  },
  {
    sql: 'SELECT DISTINCT c.city FROM customers c JOIN orders o ON o.customer_id = c.id',
    collationText: true,
  },
  {
    sql: 'SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.amount DESC, o.id LIMIT 2, 3',
    ordered: true,
  },
  {
    sql: 'SELECT c.name, o.id FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.amount > 10000',
  },
  {
    sql: 'SELECT COUNT(*), SUM(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.id < 0',
  },
  // aggregates of joined rows
  {
    sql: "SELECT c.city, GROUP_CONCAT(DISTINCT o.status ORDER BY o.status SEPARATOR '/') FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.city",
    collationText: true,
  },
  {
    sql: 'SELECT c.active, COUNT(DISTINCT o.customer_id), AVG(o.qty), MAX(o.discount) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.active',
  },
  {
    sql: 'SELECT o.customer_id, SUM(oi.quantity * p.price) AS list, SUM(oi.quantity * oi.unit_price) AS paid FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id GROUP BY o.customer_id HAVING list > 0 ORDER BY o.customer_id',
    ordered: true,
  },
  // CTEs over both sources
  {
    sql: 'WITH c AS (SELECT id, city FROM customers WHERE active), o AS (SELECT customer_id, amount FROM orders) SELECT c.city, SUM(o.amount) FROM c JOIN o ON o.customer_id = c.id GROUP BY c.city',
    collationText: true,
  },
  {
    sql: 'WITH RECURSIVE n AS (SELECT 1 AS k UNION ALL SELECT k + 1 FROM n WHERE k < 3) SELECT n.k, o.id FROM n JOIN orders o ON o.qty = n.k JOIN customers c ON c.id = o.customer_id',
  },
  {
    sql: 'SELECT c.name, x.n FROM customers c JOIN (SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id) x ON x.customer_id = c.id WHERE x.n = (SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM orders GROUP BY customer_id) y)',
    placement: ['pg', 'my', 'pg'],
  },
  // JSON from either source
  {
    sql: "SELECT c.id, JSON_EXTRACT(c.profile, '$.age'), o.amount FROM customers c JOIN orders o ON o.customer_id = c.id WHERE JSON_EXTRACT(c.profile, '$.age') > 30",
    placement: ['my', 'pg'],
  },
  {
    sql: "SELECT JSON_UNQUOTE(JSON_EXTRACT(c.profile, '$.address.city')) AS pc, COUNT(o.id) FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY pc",
    placement: ['my', 'pg'],
  },
  // the same table from both sources
  {
    sql: 'SELECT a.id, a.amount, b.amount FROM orders a JOIN orders b ON b.id = a.id WHERE a.amount <> b.amount OR a.status <> b.status',
    placement: ['pg', 'my'],
  },
  {
    sql: 'SELECT a.name, b.name FROM customers a JOIN customers b ON a.name = b.name AND a.id = b.id ORDER BY a.id',
    placement: ['my', 'pg'],
    ordered: true,
  },
];
