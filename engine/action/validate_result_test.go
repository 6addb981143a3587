package action

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseValidation(t *testing.T) {
	for _, c := range []struct {
		raw     string
		reward  float64
		done    bool
		message string
		info    string
	}{
		{`{"reward": 1, "done": true, "message": "ok", "info": {"rubric": {"a": true}}}`, 1, true, "ok", `{"rubric":{"a":true}}`},
		{`{"reward": 0.5, "message": "half"}`, 0.5, false, "half", ""},
		{`{"reward": true}`, 1, false, "", ""},
		{`{"reward": "0"}`, 0, false, "", ""},
		{`{"v": "PASS", "r": "all checks passed"}`, 1, true, "all checks passed", ""},
		{`{"verdict": "PENDING", "reason": "not yet"}`, 0, false, "not yet", ""},
		{`{"passed": true}`, 1, true, "", ""},
		{`true`, 1, true, "", ""},
		{`false`, 0, false, "", ""},
		{`1`, 1, true, "", ""},
		{`0.25`, 0.25, false, "", ""},
		{`"PASS"`, 1, true, "", ""},
		{`"{\"reward\": 1, \"done\": true}"`, 1, true, "", ""},
	} {
		v, err := ParseValidation([]byte(c.raw))
		if err != nil {
			t.Errorf("%s: %v", c.raw, err)
			continue
		}
		if v.Reward != c.reward || v.Done != c.done || v.Message != c.message || string(v.Info) != c.info {
			t.Errorf("%s: got reward %v done %v message %q info %s", c.raw, v.Reward, v.Done, v.Message, v.Info)
		}
	}
	for raw, want := range map[string]string{
		`null`:                     "returned nothing",
		`{"done": true}`:           "has no reward",
		`{"reward": "lots"}`:       `reward "lots" is not a number`,
		`{"reward": [1]}`:          "not a number",
		`{"reward": 1, "done": 1}`: "done is a",
		`[1, 2]`:                   "returned a list",
		`"maybe"`:                  `returned the text "maybe"`,
		`"\"nested\""`:             "returned the text",
		`not json`:                 "not JSON",
	} {
		_, err := ParseValidation([]byte(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", raw, err, want)
		}
	}
}

func TestCombineReward(t *testing.T) {
	one, zero := 1.0, 0.0
	f := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	for _, c := range []struct {
		check *float64
		v     *Validation
		want  string
	}{
		{nil, nil, "nil"},
		{&one, nil, "1"},
		{nil, &Validation{Reward: 1}, "1"},
		{nil, &Validation{Reward: 3}, "1"},
		{nil, &Validation{Reward: -2}, "0"},
		{nil, &Validation{Reward: 0.5}, "0.5"},
		{nil, &Validation{Reward: 1, Error: "boom"}, "0"},
		{&zero, &Validation{Reward: 1}, "0"},
		{&one, &Validation{Reward: 0}, "0"},
		{&one, &Validation{Reward: 1}, "1"},
	} {
		if got := f(CombineReward(c.check, c.v)); got != c.want {
			t.Errorf("check %s, validation %+v: got %s, want %s", f(c.check), c.v, got, c.want)
		}
	}
	if (Validation{Reward: 1}).Passed() != true || (Validation{Reward: 0.99}).Passed() || (Validation{Reward: 1, Error: "x"}).Passed() {
		t.Error("Passed: 1 without error passes, 0.99 or an error does not")
	}
}
