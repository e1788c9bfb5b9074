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
}

export const CROSS_QUERIES: CrossQuery[] = [
  // joins and aggregates
  {
    sql: 'SELECT c.city, COUNT(o.id) AS n, SUM(o.amount) AS total FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.city',
  },
  {
    sql: 'SELECT c.id, c.name, COALESCE(SUM(o.amount), 0) AS spent FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name ORDER BY spent DESC, c.id',
    ordered: true,
  },
  {
    sql: "SELECT p.category, SUM(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id WHERE o.status <> 'cancelled' GROUP BY p.category HAVING revenue > 20",
    placement: ['pg', 'my', 'my'],
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
