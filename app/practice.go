package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"waymark/assets/practice"
	"waymark/dataset"
)

// practiceKeysMeta records which practice tasks were loaded into a store, so
// a newer pack adds its new tasks once, and a task the user deleted does not
// come back.
const practiceKeysMeta = "practice_pack_keys"

// storePracticeTask finds a practice task in the store (by goal and start
// URL) or adds it.
func storePracticeTask(st *dataset.Store, p practice.Task) (dataset.Task, error) {
	c := p.Check
	return st.EnsureTask(context.Background(), dataset.Task{Goal: p.Goal, Category: p.Category, StartURL: p.StartURL,
		Source: practice.Source, SourceID: p.Key, Check: &c, ReferenceTime: p.ReferenceTime, Timezone: p.Timezone, Locale: p.Locale})
}

// practiceTask returns the pack's task with this key.
func practiceTask(key string) (practice.Task, bool) {
	for _, p := range practice.Tasks() {
		if p.Key == key {
			return p, true
		}
	}
	return practice.Task{}, false
}

// ensurePracticeTasks adds the practice pack's tasks that this store has not
// been given yet, so a new user can record at once and an upgrade brings its
// new tasks. Tasks already there are left alone.
func ensurePracticeTasks(st *dataset.Store) error {
	var loaded []string
	if v, err := st.Meta(context.Background(), practiceKeysMeta); err != nil {
		return err
	} else if v != "" {
		if err := json.Unmarshal([]byte(v), &loaded); err != nil {
			return fmt.Errorf("the store's list of loaded practice tasks is unreadable: %w", err)
		}
	}
	var errs []error
	for _, p := range practice.Tasks() {
		if slices.Contains(loaded, p.Key) {
			continue
		}
		if _, err := storePracticeTask(st, p); err != nil {
			errs = append(errs, fmt.Errorf("practice task %s: %w", p.Key, err))
			continue
		}
		loaded = append(loaded, p.Key)
	}
	b, err := json.Marshal(loaded)
	if err != nil {
		return err
	}
	return errors.Join(append(errs, st.SetMeta(context.Background(), practiceKeysMeta, string(b)))...)
}
