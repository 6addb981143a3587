# Regenerates pydantic_schema.json and pydantic_action_errors.json from the
# reproduced reference models: python3 gen_golden.py (pydantic 2.13).
import json
from pydantic import ValidationError
from reference_models import BrowserAction, BrowserObservation, State
cases = [
 {"metadata":{},"op":"click","x":900,"y":300,"text":"","dy":0},
 {"op":"click","x":-1,"y":600},
 {"op":"click"},
 {"op":"type","text":""},
 {"op":"key","text":"F5"},
 {"op":"scroll","dy":5000},
 {"op":"scroll","dy":"abc"},
 {"op":"scroll","dy":1.5},
 {"op":"fly"},
 {"x":1},
 {"op":"click","x":1,"y":2,"button":"left"},
 {"op":"type","text":"a"*2001},
 {"op":"type","text":5},
 {"op":"wait","metadata":[]},
 {"op":"click","x":"12","y":3.0},
]
out = []
for c in cases:
    try:
        BrowserAction.model_validate(c); errs = []
    except ValidationError as e:
        errs = json.loads(e.json())
    out.append({"input": c, "errors": errs})
open("pydantic_action_errors.json", "w").write(json.dumps(out, indent=1) + "\n")
open("pydantic_schema.json", "w").write(json.dumps({"action": BrowserAction.model_json_schema(), "observation": BrowserObservation.model_json_schema(), "state": State.model_json_schema()}, separators=(",", ":")) + "\n")
