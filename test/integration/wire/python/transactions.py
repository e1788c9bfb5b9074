"""Transactions through the MySQL listener with PyMySQL or mysqlclient (MySQLdb), each with
its default of autocommit off. Reads a JSON job on stdin, prints what each step saw as JSON.

Job: {"client": "pymysql" | "mysqldb", "port": N, "db": source, "table": table with (id, v),
      "other": [source, table] or null (a second source for the 1235 check), "base": first id,
      "bystander": true when another connection may read while a transaction writes}
"""
import json
import sys

job = json.load(sys.stdin)
client = job["client"]
port = job["port"]
db = job["db"]
table = f"{db}.{job['table']}"
base = job["base"]


def connect(database=None):
    if client == "pymysql":
        import pymysql

        return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database=database or db)
    import MySQLdb

    return MySQLdb.connect(host="127.0.0.1", port=port, user="root", passwd="", db=database or db)


def count(conn, id_):
    cur = conn.cursor()
    cur.execute(f"SELECT COUNT(*) FROM {table} WHERE id = {id_}")
    n = cur.fetchone()[0]
    cur.close()
    return int(n)


def one(conn, sql):
    cur = conn.cursor()
    cur.execute(sql)
    row = cur.fetchone()
    cur.close()
    return row[0]


def in_trans(conn):
    # Both drivers keep the last OK packet's status flags; SERVER_STATUS_IN_TRANS is 1.
    # (PyMySQL shows them; mysqlclient does not.)
    return bool(conn.server_status & 1) if client == "pymysql" else None


def fresh_count(id_):
    c = connect()
    try:
        return count(c, id_)
    finally:
        c.close()


out = {}

# Rolled back: the row is gone; before that the transaction reads its own write.
c = connect()
out["autocommit_default"] = int(one(c, "SELECT @@autocommit"))
out["session_autocommit"] = int(one(c, "SELECT @@session.autocommit"))
out["driver_autocommit"] = bool(c.get_autocommit())
cur = c.cursor()
cur.execute(f"INSERT INTO {table} (id, v) VALUES ({base}, 'rolled back')")
out["insert_rowcount"] = cur.rowcount
out["in_trans_after_insert"] = in_trans(c)
out["own_write_seen"] = count(c, base)
if job["bystander"]:
    out["bystander_sees"] = fresh_count(base)
c.rollback()
out["in_trans_after_rollback"] = in_trans(c)
out["after_rollback"] = count(c, base)
out["after_rollback_elsewhere"] = fresh_count(base)

# Committed: the row stays, for everyone.
cur = c.cursor()
cur.execute(f"INSERT INTO {table} (id, v) VALUES ({base + 1}, 'committed')")
cur.execute(f"UPDATE {table} SET v = 'committed twice' WHERE id = {base + 1}")
c.commit()
out["after_commit_elsewhere"] = fresh_count(base + 1)
c.close()

# Closed inside a transaction: rolled back.
c = connect()
cur = c.cursor()
cur.execute(f"INSERT INTO {table} (id, v) VALUES ({base + 2}, 'closed')")
c.close()
out["after_close"] = fresh_count(base + 2)

# Autocommit on: each statement commits on its own; ROLLBACK has nothing to undo.
c = connect()
c.autocommit(True)
out["autocommit_on"] = int(one(c, "SELECT @@autocommit"))
cur = c.cursor()
cur.execute(f"INSERT INTO {table} (id, v) VALUES ({base + 3}, 'autocommitted')")
out["in_trans_autocommit"] = in_trans(c)
c.rollback()
out["after_autocommit_rollback"] = fresh_count(base + 3)
c.close()

# A write to a second source inside the transaction: 1235 naming both, nothing written.
if job["other"]:
    other_db, other_table = job["other"]
    c = connect()
    cur = c.cursor()
    cur.execute(f"INSERT INTO {table} (id, v) VALUES ({base + 4}, 'first source')")
    try:
        cur.execute(f"INSERT INTO {other_db}.{other_table} (id, v) VALUES ({base + 4}, 'second source')")
        out["second_source"] = {"error": None}
    except Exception as e:  # noqa: BLE001 - the driver's own error class is reported
        out["second_source"] = {"error": e.args[0], "message": e.args[1], "class": type(e).__name__}
    c.rollback()
    c.close()
    c = connect(other_db)
    out["second_source_rows"] = int(one(c, f"SELECT COUNT(*) FROM {other_db}.{other_table} WHERE id = {base + 4}"))
    c.close()
    out["first_source_rows"] = fresh_count(base + 4)

print(json.dumps(out))
