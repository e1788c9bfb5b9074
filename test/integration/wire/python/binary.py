"""Binary values and a latin1 connection through the MySQL listener with PyMySQL and mysqlclient.

Run by binary.test.ts with Debian's /usr/bin/python3. Reads a JSON job on stdin:
{"port", "tables": [...], "values": {"<id>": "<hex>"}, "client": "pymysql" | "mysqldb",
 "binary_prefix": bool} writes each value with `INSERT ... VALUES (%s, %s)` (the client
escapes the bytes into the statement text) and prints {"<table>": {"<id>": "<hex read back>"},
"found": {"<table> <id>": [ids of SELECT id ... WHERE v = %s]}};
{"latin1": true, "words": [...], "text": "..."} instead writes the text into each `words` table
on a latin1 connection and prints @@character_set_client and CHAR_LENGTH of the text.
"""
import json
import sys

import MySQLdb
import pymysql


def connect(job, **extra):
    if job["client"] == "mysqldb":
        return MySQLdb.connect(host="127.0.0.1", port=job["port"], user="anyone", autocommit=True, **extra)
    return pymysql.connect(host="127.0.0.1", port=job["port"], user="anyone", autocommit=True, **extra)


def binary(job):
    conn = connect(job, binary_prefix=job["binary_prefix"])
    out = {}
    found = out["found"] = {}
    try:
        cur = conn.cursor()
        for table in job["tables"]:
            got = {}
            for key, hexed in job["values"].items():
                ident = int(key)
                cur.execute(f"DELETE FROM {table} WHERE id = %s", (ident,))
                cur.execute(f"INSERT INTO {table} (id, v) VALUES (%s, %s)", (ident, bytes.fromhex(hexed)))
                cur.execute(f"SELECT v FROM {table} WHERE id = %s", (ident,))
                got[key] = bytes(cur.fetchone()[0]).hex()
                # The same bytes as a condition find the row.
                cur.execute(f"SELECT id FROM {table} WHERE v = %s", (bytes.fromhex(hexed),))
                found[f"{table} {key}"] = [r[0] for r in cur.fetchall()]
            out[table] = got
    finally:
        conn.close()
    return out


def latin1(job):
    # PyMySQL announces latin1 in the handshake; mysqlclient sends SET NAMES latin1.
    conn = connect(job, charset="latin1")
    out = {}
    try:
        cur = conn.cursor()
        cur.execute("SELECT @@character_set_client")
        out["character_set_client"] = cur.fetchone()[0]
        for i, table in enumerate(job["words"]):
            cur.execute(f"DELETE FROM {table} WHERE id = %s", (i + 1,))
            cur.execute(f"INSERT INTO {table} (id, t) VALUES (%s, %s)", (i + 1, job["text"]))
        cur.execute("SELECT CHAR_LENGTH(%s)", (job["text"],))
        out["char_length"] = cur.fetchone()[0]
    finally:
        conn.close()
    return out


def main():
    job = json.load(sys.stdin)
    print(json.dumps(latin1(job) if job.get("latin1") else binary(job)))


main()
