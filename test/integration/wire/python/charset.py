"""A latin1 connection through the MySQL listener with PyMySQL and mysqlclient (charset.test.ts).

Run with Debian's /usr/bin/python3. Reads a JSON job on stdin, {"port", "client": "pymysql" |
"mysqldb", "job": ...}, and prints a JSON answer:
- "read", {"tables": [...]}: on a latin1 connection (PyMySQL: the handshake; mysqlclient: SET
  NAMES latin1) each table's (id, t AS `clé`, b) rows as the client decodes them, the column
  names, and (PyMySQL) each column's character set id; then after `SET character_set_results =
  NULL` the text column's bytes as they arrived (hex).
- "release", {"table"}: a row inserted then COMMIT RELEASE, another then ROLLBACK RELEASE, one
  after COMMIT AND NO CHAIN; whether each connection was closed by the server.
- "in_bytes", {"table", "values": [hex...]}: the ids of `SELECT id ... WHERE v IN (%s, %s)`.
- "select_db", {"db"}: COM_INIT_DB of a name with é on a latin1 connection, then DATABASE().
"""
import json
import sys

import MySQLdb
import pymysql


def connect(job, **extra):
    if job["client"] == "mysqldb":
        return MySQLdb.connect(host="127.0.0.1", port=job["port"], user="anyone", **extra)
    return pymysql.connect(host="127.0.0.1", port=job["port"], user="anyone", **extra)


def read(job):
    conn = connect(job, charset="latin1", autocommit=True)
    out = {"tables": {}}
    try:
        cur = conn.cursor()
        cur.execute("SELECT @@character_set_results")
        out["character_set_results"] = cur.fetchone()[0]
        for table in job["tables"]:
            cur.execute(f"SELECT id, t AS `clé`, b FROM {table} ORDER BY id")
            rows = [[r[0], r[1], None if r[2] is None else bytes(r[2]).hex()] for r in cur.fetchall()]
            got = {"rows": rows, "names": [d[0] for d in cur.description]}
            if job["client"] == "pymysql":
                got["charsets"] = [f.charsetnr for f in cur._result.fields]
            out["tables"][table] = got
        cur.execute("SET character_set_results = NULL")
        cur.execute("SELECT @@character_set_results")
        out["results_after_null"] = cur.fetchone()[0]
        raw = {}
        for table in job["tables"]:
            cur.execute(f"SELECT t FROM {table} WHERE id = 1")
            value = cur.fetchone()[0]
            # The bytes as they arrived: undo the client's decoding with its own codec.
            raw[table] = (value if isinstance(value, bytes) else value.encode(conn.encoding)).hex()
        out["raw"] = raw
    finally:
        conn.close()
    return out


def closed_by_server(conn):
    try:
        cur = conn.cursor()
        cur.execute("SELECT 1")
        cur.fetchall()
        return False
    except (pymysql.err.OperationalError, pymysql.err.InterfaceError, MySQLdb.OperationalError,
            MySQLdb.InterfaceError):
        return True


def release(job):
    table = job["table"]
    out = {}
    for ident, end in ((1, "COMMIT RELEASE"), (2, "ROLLBACK RELEASE"), (3, "COMMIT AND NO CHAIN")):
        conn = connect(job, autocommit=False)
        cur = conn.cursor()
        cur.execute(f"INSERT INTO {table} (id, t) VALUES (%s, 'x')", (ident,))
        cur.execute(end)
        out[end] = {"closed": closed_by_server(conn)}
        try:
            conn.close()
        except Exception:
            pass
    return out


def in_bytes(job):
    conn = connect(job, autocommit=True)
    try:
        cur = conn.cursor()
        values = [bytes.fromhex(v) for v in job["values"]]
        cur.execute(f"SELECT id FROM {job['table']} WHERE v IN (%s, %s) ORDER BY id", values)
        ids = [r[0] for r in cur.fetchall()]
        cur.execute(f"SELECT id FROM {job['table']} WHERE v NOT IN (%s, %s) ORDER BY id", values)
        return {"in": ids, "not_in": [r[0] for r in cur.fetchall()]}
    finally:
        conn.close()


def select_db(job):
    conn = connect(job, charset="latin1", autocommit=True)
    try:
        conn.select_db(job["db"])
        cur = conn.cursor()
        cur.execute("SELECT DATABASE()")
        return {"database": cur.fetchone()[0]}
    finally:
        conn.close()


def main():
    job = json.load(sys.stdin)
    print(json.dumps({"read": read, "release": release, "in_bytes": in_bytes, "select_db": select_db}[job["job"]](job)))


main()
