"""Python MySQL clients against the listener: PyMySQL, SQLAlchemy (mysql+pymysql) and pandas.

Run by python-clients.test.ts with Debian's /usr/bin/python3. Reads a JSON job on stdin
({"port", "join", "prepared": {"sql", "params"}, "db", "table"}) and prints one JSON object
with what each client saw; values are turned into the text POST /api/sql/query uses.
"""
import datetime
import decimal
import json
import sys
import warnings

import pymysql
import sqlalchemy
from sqlalchemy import inspect, text


def plain(v):
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, datetime.datetime):
        return v.isoformat(sep=" ")
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return str(v)
    if isinstance(v, bytes):
        return v.decode("utf8", "replace")
    if hasattr(v, "item"):  # numpy scalars from pandas
        return plain(v.item())
    return v


def rows(rs):
    return [[plain(v) for v in r] for r in rs]


def with_pymysql(job):
    out = {}
    conn = pymysql.connect(host="127.0.0.1", port=job["port"], user="anyone", password="", database=job["db"])
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT VERSION(), DATABASE()")
            out["version"], out["database"] = cur.fetchone()
            cur.execute(job["join"])
            out["join_columns"] = [d[0] for d in cur.description]
            out["join"] = rows(cur.fetchall())
            p = job["prepared"]
            cur.execute(p["sql"], p["params"])
            out["param"] = rows(cur.fetchall())
    finally:
        conn.close()
    return out


def column_info(c):
    return {
        "name": c["name"],
        "type": str(c["type"]),
        "nullable": c["nullable"],
        "default": c.get("default"),
    }


def with_sqlalchemy(job):
    out = {}
    url = f"mysql+pymysql://anyone@127.0.0.1:{job['port']}/{job['db']}"
    engine = sqlalchemy.create_engine(url)
    try:
        insp = inspect(engine)
        out["schemas"] = insp.get_schema_names()
        out["tables"] = insp.get_table_names()
        out["other_tables"] = insp.get_table_names(schema=job["other_db"])
        t = job["table"]
        out["columns"] = [column_info(c) for c in insp.get_columns(t)]
        out["other_columns"] = [column_info(c) for c in insp.get_columns(job["other_table"], schema=job["other_db"])]
        out["pk"] = insp.get_pk_constraint(t)
        out["fks"] = insp.get_foreign_keys(t)
        out["indexes"] = [
            {"name": i["name"], "column_names": i["column_names"], "unique": bool(i["unique"])}
            for i in insp.get_indexes(t)
        ]
        out["has_table"] = insp.has_table(t)
        with engine.connect() as conn:
            out["join"] = rows(conn.execute(text(job["join"])).fetchall())
            p = job["prepared"]
            named = p["sql"]
            binds = {}
            for i, v in enumerate(p["params"]):
                named = named.replace("%s", f":p{i}", 1)
                binds[f"p{i}"] = v
            out["param"] = rows(conn.execute(text(named), binds).fetchall())
        try:
            import pandas as pd
        except ImportError as e:  # reported, and the test fails on it
            out["pandas_error"] = str(e)
        else:
            # coerce_float=False keeps DECIMALs exact (pandas makes them floats by default)
            frame = pd.read_sql(job["join"], engine, coerce_float=False)
            out["pandas_columns"] = list(frame.columns)
            out["pandas"] = [[None if pd.isna(v) else plain(v) for v in r] for r in frame.itertuples(index=False)]
            table = pd.read_sql_table(t, engine)
            out["pandas_table_columns"] = list(table.columns)
            out["pandas_table_rows"] = len(table)
    finally:
        engine.dispose()
    return out


def with_integrity(job):
    """Each statement of job["violations"] run at PyMySQL's defaults: the exception class it raises and its code."""
    out = []
    conn = pymysql.connect(host="127.0.0.1", port=job["port"], user="anyone", password="", database=job["db"])
    try:
        for sql in job["violations"]:
            try:
                with conn.cursor() as cur:
                    cur.execute(sql)
                out.append({"sql": sql, "class": None, "code": None})
            except pymysql.MySQLError as e:
                out.append({"sql": sql, "class": type(e).__name__, "code": e.args[0]})
    finally:
        conn.close()
    return out


def main():
    # A line of SHOW CREATE TABLE the dialect cannot read is only a warning; here it fails.
    warnings.simplefilter("error", sqlalchemy.exc.SAWarning)
    job = json.load(sys.stdin)
    which = job["client"]
    if which == "integrity":
        result = with_integrity(job)
    else:
        result = with_pymysql(job) if which == "pymysql" else with_sqlalchemy(job)
    json.dump(result, sys.stdout, default=str)


if __name__ == "__main__":
    main()
