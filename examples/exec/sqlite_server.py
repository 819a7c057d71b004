#!/usr/bin/env python3
"""A reference program for isocheck's exec protocol (docs/EXEC.md): SQLite behind line-delimited JSON.

    isocheck run --db exec --cmd 'python3 examples/exec/sqlite_server.py'

isocheck starts this program once per run and writes one JSON request a line on its standard input; it
answers each with one JSON line on standard output (`{"id", "ok": true, "value"}` or `{"id", "error":
{"kind", "cause", "message"}}`). Each client session gets a thread and a connection of its own, so a
statement waiting for SQLite's write lock holds up only its own session. The database is a WAL file in a
temporary directory, removed when isocheck closes the program's input.

SQLite has one isolation level, serializable (a single writer; WAL readers see a snapshot), so every
other level is answered as mapped to it. SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED and a UNIQUE
violation roll the transaction back and answer `abort`; anything else is `fatal`.

Standard library only. Copy it to put your own database behind the protocol: replace the SQL.
"""

import json
import os
import queue
import shutil
import sqlite3
import sys
import tempfile
import threading

PROTOCOL = 1
# How long a statement waits for SQLite's write lock before it is an abort (as isocheck's SQLite adapter).
BUSY_TIMEOUT_S = 0.1
OPS = ["append", "read_list", "read", "write", "insert", "delete", "scan", "delete_where", "update_where"]
WHY = "SQLite has one isolation level: serializable, by a single writer (WAL readers see a snapshot)"
LEVELS = ["serializable"] + [
    {"level": level, "runs_as": "serializable", "why": WHY}
    for level in ["read-uncommitted", "read-committed", "snapshot-isolation", "repeatable-read"]
]
ABORTS = {"SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_LOCKED", "SQLITE_CONSTRAINT_PRIMARYKEY"}

out_lock = threading.Lock()


def answer(response):
    line = json.dumps(response, separators=(",", ":"))
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Fail(Exception):
    """An error answer: kind is abort, indeterminate or fatal."""

    def __init__(self, kind, cause, message):
        super().__init__(message)
        self.kind, self.cause, self.message = kind, cause, message


def key_text(key):
    # Keys are integers or strings; JSON text keeps which.
    return json.dumps(key)


def condition(predicate):
    """SQL for a predicate read: "true", ["=", v] or ["mod", m, r] (remainder truncated, as Rust's)."""
    if predicate == "true":
        return "1", []
    if isinstance(predicate, list) and len(predicate) == 2 and predicate[0] == "=":
        return "v = ?", [predicate[1]]
    if isinstance(predicate, list) and len(predicate) == 3 and predicate[0] == "mod":
        if predicate[1] == 0:
            return "0", []
        return "v % ? = ?", [predicate[1], predicate[2]]
    raise Fail("fatal", "bad-predicate", f"unknown predicate {predicate!r}")


def connect(path, timeout=BUSY_TIMEOUT_S):
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


def prepare(path, registers):
    conn = connect(path, timeout=5)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DROP TABLE IF EXISTS lists")
        conn.execute("DROP TABLE IF EXISTS registers")
        conn.execute("CREATE TABLE lists (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
        conn.execute("CREATE TABLE registers (k TEXT PRIMARY KEY, v INTEGER NOT NULL, ver INTEGER NOT NULL DEFAULT 0)")
        conn.executemany("INSERT INTO registers (k, v) VALUES (?, ?)", [(key_text(k), v) for k, v in registers])
        conn.execute("COMMIT")
    finally:
        conn.close()


class Session:
    """One client's connection, served on its own thread."""

    def __init__(self, path):
        self.conn = connect(path)
        # "idle", "open", or "failed": an abort ended the transaction, and only commit or rollback (each
        # answered as the end of it) leaves that state, as in isocheck's SQL adapters.
        self.state = "idle"
        self.requests = queue.Queue()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            request = self.requests.get()
            rid, op = request["id"], request["op"]
            try:
                value = self.perform(op, request)
                answer({"id": rid, "ok": True, "value": value})
            except Fail as e:
                answer({"id": rid, "error": {"kind": e.kind, "cause": e.cause, "message": e.message}})
            if op == "close":
                self.conn.close()
                return

    def sql(self, statement, args=()):
        try:
            return self.conn.execute(statement, args).fetchall()
        except sqlite3.Error as e:
            name = getattr(e, "sqlite_errorname", type(e).__name__)
            if name in ABORTS:
                # SQLite's abort: the transaction ends here, as isocheck's SQLite adapter ends it.
                self.rollback()
                self.state = "failed"
                raise Fail("abort", name, str(e))
            raise Fail("fatal", name, str(e))

    def rollback(self):
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def perform(self, op, r):
        if op in ("rollback", "close"):
            self.rollback()
            self.state = "idle"
            return None
        if op == "begin":
            self.sql("BEGIN")
            self.state = "open"
            return None
        if self.state == "failed":
            if op == "commit":
                self.state = "idle"
            raise Fail("abort", "in-failed-transaction", "an earlier statement aborted the transaction")
        if self.state == "idle":
            raise Fail("fatal", "no-transaction", f"{op} outside a transaction")
        if op == "commit":
            self.sql("COMMIT")
            self.state = "idle"
        elif op == "append":
            self.sql(
                "INSERT INTO lists (k, v) VALUES (?1, ?2) ON CONFLICT (k) DO UPDATE SET v = v || ',' || ?2",
                (key_text(r["key"]), str(r["value"])),
            )
        elif op == "read_list":
            rows = self.sql("SELECT v FROM lists WHERE k = ?", (key_text(r["key"]),))
            return [int(x) for x in rows[0][0].split(",")] if rows else []
        elif op == "read":
            rows = self.sql("SELECT v FROM registers WHERE k = ?", (key_text(r["key"]),))
            return rows[0][0] if rows else None
        elif op == "write":
            # The row's version counter goes up in the writing statement, under SQLite's one write lock,
            # held to the commit: every committed version is numbered above the one it replaced.
            rows = self.sql(
                "INSERT INTO registers (k, v, ver) VALUES (?1, ?2, 1) "
                "ON CONFLICT (k) DO UPDATE SET v = ?2, ver = ver + 1 RETURNING ver",
                (key_text(r["key"]), r["value"]),
            )
            return {"version": rows[0][0]}
        elif op == "insert":
            self.sql("INSERT INTO registers (k, v) VALUES (?, ?)", (key_text(r["key"]), r["value"]))
        elif op == "delete":
            return len(self.sql("DELETE FROM registers WHERE k = ? RETURNING k", (key_text(r["key"]),))) > 0
        elif op in ("scan", "delete_where"):
            where, args = condition(r["predicate"])
            verb = "SELECT k, v FROM" if op == "scan" else "DELETE FROM"
            rows = self.sql(f"{verb} registers WHERE {where}" + ("" if op == "scan" else " RETURNING k, v"), args)
            return [[json.loads(k), v] for k, v in rows]
        elif op == "update_where":
            where, args = condition(r["predicate"])
            change = r["change"]
            if "add" in change:
                rows = self.sql(
                    f"UPDATE registers SET v = v + ?, ver = ver + 1 WHERE {where} RETURNING k, v", [change["add"]] + args
                )
                return [[json.loads(k), v - change["add"], v] for k, v in rows]
            if not (isinstance(r["predicate"], list) and r["predicate"][0] == "="):
                raise Fail("fatal", "unsupported", "update_where with set needs an equality predicate")
            rows = self.sql(
                f"UPDATE registers SET v = ?, ver = ver + 1 WHERE {where} RETURNING k, v", [change["set"]] + args
            )
            return [[json.loads(k), r["predicate"][1], v] for k, v in rows]
        else:
            raise Fail("fatal", "unsupported", f"this program does not serve {op}")
        return None


def main():
    directory = tempfile.mkdtemp(prefix="isocheck-exec-sqlite-")
    path = os.path.join(directory, "db.sqlite")
    sessions = {}
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            request = json.loads(line)
            rid, op, session = request["id"], request["op"], request.get("session")
            try:
                if op == "hello":
                    version = f"1.0 (SQLite {sqlite3.sqlite_version}, Python {sys.version.split()[0]})"
                    hello = {"protocol": PROTOCOL, "name": "sqlite_server.py", "version": version, "ops": OPS,
                             "levels": LEVELS}
                    answer({"id": rid, "ok": True, "value": hello})
                elif op == "prepare":
                    prepare(path, request["registers"])
                    answer({"id": rid, "ok": True})
                elif op == "open":
                    sessions[session] = Session(path)
                    answer({"id": rid, "ok": True})
                elif session in sessions:
                    # The session's thread answers, in the session's order.
                    sessions[session].requests.put(request)
                    if op == "close":
                        sessions.pop(session).thread.join()
                else:
                    raise Fail("fatal", "no-session", f"{op} for session {session}, which is not open")
            except Fail as e:
                answer({"id": rid, "error": {"kind": e.kind, "cause": e.cause, "message": e.message}})
            except sqlite3.Error as e:
                answer({"id": rid, "error": {"kind": "fatal", "cause": type(e).__name__, "message": str(e)}})
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
