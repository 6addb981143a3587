"""Reads a Waymark Online-Mind2Web export the way its auto-evaluation does,
written from the benchmark's documented v2 submission layout and its
evaluation script's loading: each task is a folder named by its task id
holding result.json and trajectory/; a result with schema_version
"online-mind2web-v2" has action_history steps (step, screenshot, url,
action, action_status, thought); the judge reads the task, every step's
screenshot (trajectory/<screenshot>), and the actions of all steps but the
last, which is the agent's TASK_COMPLETE answer. Also checks the v2 rules
(step equals its index, a thought key on every step, action_status SUCCESS,
FAILED or null agreeing with the action's suffix, the last step
"TASK_COMPLETE -> ANSWER: " matching agent_final_answer, task ids of
letters, digits, '_' and '-'), and reads human_label.json (0 failure,
1 success, 2 not executable). Prints a JSON summary.

Usage: python3 om2w_reader.py EXPORT_DIR
"""
import json
import os
import re
import sys

root = sys.argv[1]
out = {"tasks": {}, "human_label": {}}
for agent in sorted(os.listdir(root)):
    adir = os.path.join(root, agent)
    if not os.path.isdir(adir) or agent.startswith("guidelines"):
        continue
    for task_id in sorted(d for d in os.listdir(adir) if os.path.isdir(os.path.join(adir, d))):
        with open(os.path.join(adir, task_id, "result.json")) as f:
            result = json.load(f)
        assert result.get("schema_version") == "online-mind2web-v2"
        assert re.fullmatch(r"[A-Za-z0-9_-]+", result["task_id"]), result["task_id"]
        assert result["task_id"] == task_id
        steps = result["action_history"]
        screenshots = []
        for i, s in enumerate(steps):
            assert s["step"] == i, (i, s["step"])
            assert "thought" in s
            assert re.fullmatch(r"[A-Za-z0-9_-]+\.(png|jpg|jpeg|webp)", s["screenshot"]), s["screenshot"]
            p = os.path.join(adir, task_id, "trajectory", s["screenshot"])
            with open(p, "rb") as img:
                assert img.read(8) == b"\x89PNG\r\n\x1a\n", p
            screenshots.append(s["screenshot"])
            m = re.search(r"\|\s*(SUCCESS|FAILED)\s*$", s["action"])
            assert s["action_status"] in (None, "SUCCESS", "FAILED")
            assert (m.group(1) if m else None) == s["action_status"], s
        last = steps[-1]["action"]
        assert last.startswith("TASK_COMPLETE -> ANSWER: "), last
        answer = result["agent_final_answer"]
        norm = lambda x: " ".join(x.split())
        assert norm(last[len("TASK_COMPLETE -> ANSWER: "):]) == norm(answer or ""), (last, answer)
        out["tasks"][task_id] = {
            "agent": agent, "task": result["task"], "final": answer,
            "actions": [s["action"] for s in steps[:-1]],
            "thoughts": [s.get("thought") for s in steps],
            "screenshots": screenshots,
            "key_points": result.get("key_points"),
            "reference_length": result.get("reference_length"),
        }
with open(os.path.join(root, "human_label.json")) as f:
    labels = json.load(f)
for agent, tasks in labels.items():
    for task_id, label in tasks.items():
        assert label in (0, 1, 2), label
        assert out["tasks"][task_id]["agent"] == agent
        out["human_label"][task_id] = label
json.dump(out, sys.stdout, indent=1, sort_keys=True)
