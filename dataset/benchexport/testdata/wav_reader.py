"""Reads a Waymark WebArena-Verified export the way its evaluator does,
written from the benchmark's documentation (Agent Response Schema; Network
Event-Based Evaluation) and its loaders' documented behaviour: a run folder
holds one folder per task, named by the task's number, with
agent_response.json and network.har. The agent response is the final
response model: task_type (or the older performed_operation) RETRIEVE,
MUTATE or NAVIGATE, case-insensitive; status one of SUCCESS,
ACTION_NOT_ALLOWED_ERROR, PERMISSION_DENIED_ERROR, NOT_FOUND_ERROR,
DATA_VALIDATION_ERROR, UNKNOWN_ERROR; retrieved_data a list of items of one
type, or null; error_details a string or null. The HAR needs log.entries,
not empty; each entry's request has url, method and headers (name, value),
its response a status and, for a redirect, redirectURL. Prints a JSON
summary.

Usage: python3 wav_reader.py EXPORT_DIR
"""
import json
import os
import sys

root = sys.argv[1]
TYPES = {"RETRIEVE", "MUTATE", "NAVIGATE"}
STATUSES = {"SUCCESS", "ACTION_NOT_ALLOWED_ERROR", "PERMISSION_DENIED_ERROR", "NOT_FOUND_ERROR",
            "DATA_VALIDATION_ERROR", "UNKNOWN_ERROR"}


def agent_response(p):
    with open(p) as f:
        d = json.load(f)
    tt = d.get("task_type", d.get("performed_operation"))
    assert isinstance(tt, str) and tt.upper() in TYPES, tt
    st = d["status"]
    assert isinstance(st, str) and st.upper() in STATUSES, st
    data = d.get("retrieved_data")
    assert data is None or isinstance(data, list), data
    if data:
        assert len({type(x) for x in data}) == 1, data
    assert d.get("error_details") is None or isinstance(d["error_details"], str)
    return {"task_type": tt.upper(), "status": st.upper(), "retrieved_data": data,
            "error_details": d.get("error_details"), "action": d.get("action"), "results": d.get("results")}


def har(p):
    with open(p) as f:
        d = json.load(f)
    if "log" not in d:
        raise ValueError("Invalid HAR format: missing 'log' field")
    if "entries" not in d["log"]:
        raise ValueError("Invalid HAR format: missing 'log.entries' field")
    entries = d["log"]["entries"]
    if not entries:
        raise ValueError("HAR file contains no entries")
    events = []
    for e in entries:
        req, resp = e["request"], e["response"]
        headers = {h["name"].lower(): h["value"] for h in req["headers"]}
        status = resp["status"]
        assert isinstance(status, int)
        if 300 <= status < 400:
            assert isinstance(resp["redirectURL"], str)
        events.append({"method": req["method"], "url": req["url"], "status": status, "referer": headers.get("referer")})
    return events


out = {}
for run in sorted(os.listdir(root)):
    rdir = os.path.join(root, run)
    if not os.path.isdir(rdir) or run == "guidelines":
        continue
    for task in sorted(os.listdir(rdir)):
        tdir = os.path.join(rdir, task)
        rec = {"evaluable": task.isdigit(), "agent_response": agent_response(os.path.join(tdir, "agent_response.json"))}
        hp = os.path.join(tdir, "network.har")
        rec["network"] = har(hp) if os.path.exists(hp) else None
        out[run + "/" + task] = rec
json.dump(out, sys.stdout, indent=1, sort_keys=True)
