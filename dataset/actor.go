package dataset

import (
	"fmt"
	"strings"
)

// Actor prefixes: every step says who acted, "agent:NAME" or "human:NAME".
const (
	ActorAgentPrefix = "agent:"
	ActorHumanPrefix = "human:"
)

// ActorOf is the actor of an annotator's own steps: an annotator named
// "agent:NAME" acts as itself, a person NAME as "human:NAME".
func ActorOf(annotator string) string {
	a := strings.TrimSpace(annotator)
	if strings.HasPrefix(a, ActorAgentPrefix) || strings.HasPrefix(a, ActorHumanPrefix) {
		return a
	}
	return ActorHumanPrefix + a
}

// HumanActor is the actor of a person's steps.
func HumanActor(name string) string {
	return ActorOf(strings.TrimPrefix(strings.TrimSpace(name), ActorHumanPrefix))
}

// IsAgentActor reports whether an actor is an agent.
func IsAgentActor(actor string) bool { return strings.HasPrefix(actor, ActorAgentPrefix) }

// ActorName is the actor without its prefix.
func ActorName(actor string) string {
	return strings.TrimPrefix(strings.TrimPrefix(actor, ActorAgentPrefix), ActorHumanPrefix)
}

// CheckActor refuses an actor that is not "agent:NAME" or "human:NAME".
func CheckActor(actor string) error {
	switch {
	case strings.HasPrefix(actor, ActorAgentPrefix), strings.HasPrefix(actor, ActorHumanPrefix):
		if strings.TrimSpace(ActorName(actor)) == "" || len(actor) > 200 {
			return fmt.Errorf("step actor %q: the name after the prefix must be 1 to 194 characters", actor)
		}
		return nil
	}
	return fmt.Errorf("step actor %q: it must be agent:NAME or human:NAME", actor)
}

// CountInterventions counts the times someone other than own took over: the
// runs of consecutive actors that are not own (actors of the kept action
// steps, in order). An episode an agent began and a person corrected twice
// has two.
func CountInterventions(own string, actors []string) int {
	n, prev := 0, own
	for _, a := range actors {
		if a != own && prev == own {
			n++
		}
		prev = a
	}
	return n
}

// actorSQL is the SQL expression of ActorOf for an annotator column.
func actorSQL(col string) string {
	return `(CASE WHEN substr(` + col + `, 1, 6) IN ('agent:', 'human:') THEN ` + col + ` ELSE 'human:' || ` + col + ` END)`
}

// interventionsSQL counts an episode's interventions (CountInterventions
// over its kept action steps after its branch step: a branch's replayed
// prefix is no takeover) for the episode aliased e. A step stored without
// an actor is the annotator's.
var interventionsSQL = `(SELECT COUNT(*) FROM steps s WHERE s.episode_id = e.id AND s.idx > COALESCE(e.branch_step, 0) AND s.removed = 0 AND s.actor NOT IN ('', ` + actorSQL("e.annotator") + `)
	AND COALESCE((SELECT NULLIF(p.actor, '') FROM steps p WHERE p.episode_id = e.id AND p.idx > COALESCE(e.branch_step, 0) AND p.idx < s.idx AND p.removed = 0 ORDER BY p.idx DESC LIMIT 1),
		` + actorSQL("e.annotator") + `) = ` + actorSQL("e.annotator") + `)`
