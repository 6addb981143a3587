package practice

import (
	"encoding/json"
	"fmt"
	"time"

	"waymark/engine/action"
)

// Task categories.
const (
	Information = "information"
	Navigation  = "navigation"
	Interaction = "interaction"
)

// Task is one practice task with its automatic check.
type Task struct {
	// Key is a stable id such as "shop-cheapest-waterproof-boots".
	Key string `json:"key"`
	// Goal is what the annotator or agent is asked to do.
	Goal string `json:"goal"`
	// Category is "information", "navigation" or "interaction".
	Category string `json:"category"`
	// StartURL is on one of the practice hosts, e.g. http://shop.waymark.test/.
	StartURL string `json:"start_url"`
	// Check decides the automatic reward at the end of an episode.
	Check action.Check `json:"check"`
	// ReferenceTime, when set, is the instant the page's clock shows at
	// reset (RFC 3339 with an offset); Timezone (IANA) and Locale (BCP 47)
	// what the page sees. The pages that use dates depend on them.
	ReferenceTime *time.Time `json:"reference_time,omitempty"`
	Timezone      string     `json:"timezone,omitempty"`
	Locale        string     `json:"locale,omitempty"`
}

// Source is the task source name the store records for the practice pack.
const Source = "waymark-practice"

var tasks = mustLoadTasks()

func mustLoadTasks() []Task {
	raw, err := files.ReadFile("tasks.json")
	if err != nil {
		panic(err)
	}
	var ts []Task
	if err := json.Unmarshal(raw, &ts); err != nil {
		// tasks.json is embedded and checked by the tests; a broken edit
		// must not reach a build.
		panic(fmt.Sprintf("practice: tasks.json: %v", err))
	}
	return ts
}

// Tasks returns the practice task pack (a fresh copy each call).
func Tasks() []Task {
	out := make([]Task, len(tasks))
	copy(out, tasks)
	return out
}
