/** A MariaDB database with a few small tables, a view and a 5,000-row table. */
import { createMariaDatabase, mariaExec } from '../../../helpers/services.js';

export const BIG_ROWS = 5000;

export async function createShopDatabase(): Promise<{ database: string; drop: () => Promise<void> }> {
  const db = await createMariaDatabase('mcp');
  await mariaExec(
    db.database,
    `CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, email VARCHAR(80), vip BOOLEAN);
     CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id INT, amount DECIMAL(10,2), placed DATE, placed_at DATETIME, note TEXT);
     CREATE VIEW big_orders AS SELECT * FROM orders WHERE amount > 100;
     CREATE TABLE numbers (n INT PRIMARY KEY);
     INSERT INTO customers VALUES (1,'Ada','ada@example.com',1),(2,'Bob','bob@example.com',0),(3,'Cy',NULL,0);
     INSERT INTO orders VALUES (10,1,250.50,'2024-01-02','2024-01-02 10:00:00','first'),
       (11,1,20.00,'2024-02-03','2024-02-03 11:30:00',NULL),(12,2,120.00,'2024-03-04','2024-03-04 12:00:00','big');
     INSERT INTO numbers SELECT seq FROM seq_1_to_${BIG_ROWS};`,
  );
  return db;
}
