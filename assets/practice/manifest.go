package practice

import _ "embed"

// Manifest is an example task manifest in the BrowserGym style (the
// pi-chrome task-manifest.json format) for the practice sites: five tasks,
// each with an in-page validateScript and a cheatScript that does the task,
// so `waymark tasks check --all` can show that every grader fails on the
// untouched page and passes once the task is done. Import it with
// `waymark tasks import` (the app writes it out with `waymark tasks
// example-manifest`).
//
//go:embed manifest.json
var Manifest []byte
