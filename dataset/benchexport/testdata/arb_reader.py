"""Reads a Waymark AgentRewardBench export the way AgentRewardBench's code
does, written from its documented layout (README: trajectories/cleaned,
trajectories/screenshots; annotations.csv, splits.csv) and its readers'
behaviour: annotations are read with csv.DictReader; the first row of a
(benchmark, model_name, task_id) is the primary annotator, later ones are
secondary; labels are turned into numbers (Successful/Yes 1,
Unsuccessful/No 0, "N. ..." optimality N, Unsure left out, anything else an
error); a judge finds trajectories as <base>/<benchmark>/<agent>/**/*.json,
skips those not valid, and reads goal, steps (url, action, reasoning), the
last step's screenshot_path (relative to the download root), axtree and
axtree_pruned, and summary_info.cum_reward. Prints a JSON summary.

Usage: python3 arb_reader.py EXPORT_DIR
"""
import csv
import glob
import json
import os
import sys

root = sys.argv[1]


def numerize(label):
    label = label.strip().lower()
    if label in ("successful", "yes", "success"):
        return 1
    if label in ("unsuccessful", "no", "failure"):
        return 0
    if label[:2] in ("1.", "2.", "3.", "4."):
        return int(label[0])
    raise ValueError("Unknown label: %r" % label)


def is_unsure(label):
    return label == "Unsure" or label is None


out = {"annotations": [], "trajectories": {}, "splits": {}}
with open(os.path.join(root, "annotations.csv"), newline="") as f:
    seen = set()
    for row in csv.DictReader(f):
        key = (row["benchmark"], row["model_name"], row["task_id"])
        kind = "secondary" if key in seen else "primary"
        seen.add(key)
        rec = {"annotator": row["annotator_name"], "task_id": row["task_id"], "model_name": row["model_name"], "type": kind}
        for cat in ("trajectory_success", "trajectory_side_effect", "trajectory_optimality", "trajectory_looping"):
            rec[cat] = None if is_unsure(row[cat]) else numerize(row[cat])
        rec["reviewed_at"] = row["reviewed_at"]
        rec["guidelines_version"] = row["guidelines_version"]
        out["annotations"].append(rec)

with open(os.path.join(root, "splits.csv"), newline="") as f:
    for row in csv.DictReader(f):
        out["splits"][row["task_id"]] = row["split"]

base = os.path.join(root, "trajectories", "cleaned")
for benchmark in sorted(os.listdir(base)):
    for agent in sorted(os.listdir(os.path.join(base, benchmark))):
        for path in sorted(glob.glob(os.path.join(base, benchmark, agent, "**", "*.json"), recursive=True)):
            with open(path) as f:
                t = json.load(f)
            if not t["valid"]:
                continue
            task_id = os.path.splitext(os.path.basename(path))[0]
            assert task_id.split(".")[0] == t["benchmark"] == benchmark, (task_id, t["benchmark"])
            assert t["agent"] == agent
            last = t["steps"][-1]
            shot = os.path.join(root, last["screenshot_path"])
            with open(shot, "rb") as img:
                assert img.read(8) == b"\x89PNG\r\n\x1a\n", shot
            steps = []
            for i, s in enumerate(t["steps"]):
                assert s["num"] == i
                steps.append({"url": s["url"], "action": s["action"], "reasoning": s["reasoning"],
                              "last_action_error": s["last_action_error"], "axtree": s["axtree"],
                              "axtree_pruned": s["axtree_pruned"], "focused_element": s["focused_element"],
                              "screenshot_path": s["screenshot_path"]})
            out["trajectories"][task_id] = {
                "agent": t["agent"], "model": t["model"], "goal": t["goal"], "seed": t["seed"],
                "cum_reward": t["summary_info"]["cum_reward"], "n_steps": t["summary_info"]["n_steps"],
                "steps": steps,
            }
# Every annotation names a trajectory and a split, as the scorer needs.
for a in out["annotations"]:
    assert a["task_id"] in out["trajectories"], a["task_id"]
    assert out["splits"][a["task_id"]] in ("dev", "test")
json.dump(out, sys.stdout, indent=1, sort_keys=True)
