package action

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const opened = "2026-11-21T12:00:00Z"

func TestRunEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		// Every kind.
		{
			name:       "missing_input_waiting",
			args:       []string{"--trigger", `{"kind":"missing_input","replies":2}`, "--opened-at", opened, "--now", "2026-11-22T12:00:00Z", "--replies", "1"},
			wantStdout: `{"fired":false,"reason":"1 of 2 replies","due_at":null}`,
		},
		{
			name:       "missing_input_fired",
			args:       []string{"--trigger", `{"kind":"missing_input","replies":2}`, "--opened-at", opened, "--now", "2026-11-22T12:00:00Z", "--replies", "2"},
			wantStdout: `{"fired":true,"reason":"2 of 2 replies","due_at":null,"fired_by":"missing_input"}`,
		},
		{
			name:       "missing_input_synthetic_replies_match_from_and_thread",
			args:       []string{"--trigger", `{"kind":"missing_input","replies":2,"from":["alice"],"scope":"thread"}`, "--opened-at", opened, "--now", opened, "--replies=3"},
			wantStdout: `{"fired":true,"reason":"2 of 2 replies in thread","due_at":null,"fired_by":"missing_input"}`,
		},
		{
			name:       "missing_input_no_replies",
			args:       []string{"--trigger", `{"kind":"missing_input","replies":1,"from":["alice","bob"]}`, "--opened-at", opened, "--now", opened},
			wantStdout: `{"fired":false,"reason":"0 of 1 reply from alice, bob","due_at":null}`,
		},
		{
			name:       "elapsed_waiting",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P2D"}`, "--opened-at", opened, "--now", "2026-11-23T11:59:59Z"},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-11-23T12:00:00Z","due_at":"2026-11-23T12:00:00Z"}`,
		},
		{
			name:       "elapsed_fired",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P2D"}`, "--opened-at", opened, "--now", "2026-11-23T12:00:00Z"},
			wantStdout: `{"fired":true,"reason":"elapsed at 2026-11-23T12:00:00Z","due_at":"2026-11-23T12:00:00Z","fired_by":"elapsed"}`,
		},
		{
			name:       "escalation_waiting",
			args:       []string{"--trigger", `{"kind":"escalation_needed","signal":"security-review"}`, "--opened-at", opened, "--now", opened, "--signal", "other"},
			wantStdout: `{"fired":false,"reason":"waiting for signal \"security-review\"","due_at":null}`,
		},
		{
			name:       "escalation_fired",
			args:       []string{"--trigger", `{"kind":"escalation_needed","signal":"security-review"}`, "--opened-at", opened, "--now", opened, "--signal", "other", "--signal=security-review"},
			wantStdout: `{"fired":true,"reason":"signal \"security-review\" received","due_at":null,"fired_by":"escalation_needed"}`,
		},
		{
			name:       "escalation_any_signal",
			args:       []string{"--trigger", `{"kind":"escalation_needed","signal":"go"}`, "--opened-at", opened, "--now", opened, "--signal", "*"},
			wantStdout: `{"fired":true,"reason":"signal \"*\" received","due_at":null,"fired_by":"escalation_needed"}`,
		},
		// Composites.
		{
			name:       "any_waiting",
			args:       []string{"--trigger", `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}`, "--opened-at", opened, "--now", "2026-11-22T00:00:00Z", "--replies", "1"},
			wantStdout: `{"fired":false,"reason":"1 of 2 replies; elapsed due 2026-11-23T12:00:00Z","due_at":"2026-11-23T12:00:00Z"}`,
		},
		{
			name:       "any_fired_by_replies",
			args:       []string{"--trigger", `{"kind":"any","of":[{"kind":"missing_input","replies":2},{"kind":"elapsed","elapsed":"P2D"}]}`, "--opened-at", opened, "--now", "2026-11-22T00:00:00Z", "--replies", "2"},
			wantStdout: `{"fired":true,"reason":"2 of 2 replies","due_at":"2026-11-23T12:00:00Z","fired_by":"missing_input"}`,
		},
		{
			name:       "all_waiting_on_time",
			args:       []string{"--trigger", `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P2D"}]}`, "--opened-at", opened, "--now", "2026-11-22T00:00:00Z", "--replies", "1"},
			wantStdout: `{"fired":false,"reason":"1 of 1 reply; elapsed due 2026-11-23T12:00:00Z","due_at":"2026-11-23T12:00:00Z"}`,
		},
		{
			name:       "all_waiting_on_people",
			args:       []string{"--trigger", `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P2D"}]}`, "--opened-at", opened, "--now", "2026-11-22T00:00:00Z"},
			wantStdout: `{"fired":false,"reason":"0 of 1 reply; elapsed due 2026-11-23T12:00:00Z","due_at":null}`,
		},
		{
			name:       "all_fired",
			args:       []string{"--trigger", `{"kind":"all","of":[{"kind":"missing_input","replies":1},{"kind":"elapsed","elapsed":"P2D"}]}`, "--opened-at", opened, "--now", "2026-11-24T00:00:00Z", "--replies", "1"},
			wantStdout: `{"fired":true,"reason":"1 of 1 reply; elapsed at 2026-11-23T12:00:00Z","due_at":"2026-11-23T12:00:00Z","fired_by":"elapsed"}`,
		},
		// Expiry, both ways.
		{
			name:       "expires_resume_waiting",
			args:       []string{"--trigger", `{"kind":"missing_input","replies":2,"expires":"P7D"}`, "--opened-at", opened, "--now", "2026-11-22T00:00:00Z"},
			wantStdout: `{"fired":false,"reason":"0 of 2 replies; expires 2026-11-28T12:00:00Z","due_at":"2026-11-28T12:00:00Z"}`,
		},
		{
			name:       "expires_resume",
			args:       []string{"--trigger", `{"kind":"missing_input","replies":2,"expires":"P7D","on_expire":"resume"}`, "--opened-at", opened, "--now", "2026-11-28T12:00:00Z", "--replies", "1"},
			wantStdout: `{"fired":true,"reason":"expired at 2026-11-28T12:00:00Z","due_at":"2026-11-28T12:00:00Z","fired_by":"expired"}`,
		},
		{
			name:       "expires_cancel_waiting",
			args:       []string{"--trigger", `{"kind":"escalation_needed","signal":"go","expires":"P7D","on_expire":"cancel"}`, "--opened-at", opened, "--now", "2026-11-22T00:00:00Z"},
			wantStdout: `{"fired":false,"reason":"waiting for signal \"go\"; expires 2026-11-28T12:00:00Z, then cancelled","due_at":null}`,
		},
		{
			name:       "expires_cancel",
			args:       []string{"--trigger", `{"kind":"escalation_needed","signal":"go","expires":"P7D","on_expire":"cancel"}`, "--opened-at", opened, "--now", "2026-12-01T00:00:00Z"},
			wantStdout: `{"fired":false,"reason":"expired at 2026-11-28T12:00:00Z, cancelled","due_at":null,"cancelled":true}`,
		},
		{
			name:       "signal_before_expiry_wins_on_a_late_run",
			args:       []string{"--trigger", `{"kind":"escalation_needed","signal":"go","expires":"P7D","on_expire":"cancel"}`, "--opened-at", opened, "--now", "2026-12-01T00:00:00Z", "--signal", "go"},
			wantStdout: `{"fired":true,"reason":"signal \"go\" received","due_at":null,"fired_by":"escalation_needed"}`,
		},
		// Calendar arithmetic.
		{
			name:       "month_end_clamped",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P1M"}`, "--opened-at", "2026-01-31T00:00:00Z", "--now", "2026-02-01T00:00:00Z"},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-02-28T00:00:00Z","due_at":"2026-02-28T00:00:00Z"}`,
		},
		{
			name:       "leap_year",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P1M"}`, "--opened-at", "2028-01-31T00:00:00Z", "--now", "2028-02-29T00:00:00Z"},
			wantStdout: `{"fired":true,"reason":"elapsed at 2028-02-29T00:00:00Z","due_at":"2028-02-29T00:00:00Z","fired_by":"elapsed"}`,
		},
		{
			name:       "weeks",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P2W"}`, "--opened-at", opened, "--now", opened},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-12-05T12:00:00Z","due_at":"2026-12-05T12:00:00Z"}`,
		},
		{
			name:       "fraction_of_an_hour",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"PT0.5H"}`, "--opened-at", opened, "--now", opened},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-11-21T12:30:00Z","due_at":"2026-11-21T12:30:00Z"}`,
		},
		{
			name:       "fraction_of_a_second_truncated_in_output",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P1DT1.5S"}`, "--opened-at", opened, "--now", "2026-11-22T12:00:01Z"},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-11-22T12:00:01Z","due_at":"2026-11-22T12:00:01Z"}`,
		},
		{
			name:       "fraction_of_a_second_fired",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P1DT1.5S"}`, "--opened-at", opened, "--now", "2026-11-22T12:00:02Z"},
			wantStdout: `{"fired":true,"reason":"elapsed at 2026-11-22T12:00:01Z","due_at":"2026-11-22T12:00:01Z","fired_by":"elapsed"}`,
		},
		{
			name:       "times_in_other_zones_print_as_utc",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"PT12H"}`, "--opened-at", "2026-11-21T07:00:00-05:00", "--now", "2026-11-21T13:00:00+01:00"},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-11-22T00:00:00Z","due_at":"2026-11-22T00:00:00Z"}`,
		},
		{
			name:       "max_recess_flag",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P1Y"}`, "--opened-at", opened, "--now", opened, "--max-recess", "P1Y"},
			wantStdout: `{"fired":false,"reason":"elapsed due 2027-11-21T12:00:00Z","due_at":"2027-11-21T12:00:00Z"}`,
		},
		{
			name:       "single_dash_flags",
			args:       []string{"-trigger", `{"kind":"elapsed","elapsed":"PT90M"}`, "-opened-at=" + opened, "-now", opened},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-11-21T13:30:00Z","due_at":"2026-11-21T13:30:00Z"}`,
		},
		// Where the clock and the trigger come from.
		{
			name:       "now_from_recess_now",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--opened-at", opened},
			env:        map[string]string{"RECESS_NOW": "2026-11-22T12:00:00Z"},
			wantStdout: `{"fired":true,"reason":"elapsed at 2026-11-22T12:00:00Z","due_at":"2026-11-22T12:00:00Z","fired_by":"elapsed"}`,
		},
		{
			name:       "now_flag_beats_recess_now",
			args:       []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--opened-at", opened, "--now", opened},
			env:        map[string]string{"RECESS_NOW": "2026-11-22T12:00:00Z"},
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-11-22T12:00:00Z","due_at":"2026-11-22T12:00:00Z"}`,
		},
		{
			name:       "trigger_from_stdin",
			args:       []string{"--trigger", "-", "--opened-at", opened, "--now", opened},
			stdin:      `{"kind":"elapsed","elapsed":"P1D"}`,
			wantStdout: `{"fired":false,"reason":"elapsed due 2026-11-22T12:00:00Z","due_at":"2026-11-22T12:00:00Z"}`,
		},
		// Refused triggers: the FieldError names the field.
		{name: "refused_bare_p", args: evalArgs(`{"kind":"elapsed","elapsed":"P"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "P": no date or time components`},
		{name: "refused_bare_pt", args: evalArgs(`{"kind":"elapsed","elapsed":"PT"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "PT": T must be followed by a time component (H, M or S)`},
		{name: "refused_hours_in_date_part", args: evalArgs(`{"kind":"elapsed","elapsed":"P1H"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "P1H": designator H belongs after T (PT1H)`},
		{name: "refused_no_p", args: evalArgs(`{"kind":"elapsed","elapsed":"1D"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "1D": must start with P`},
		{name: "refused_dangling_t", args: evalArgs(`{"kind":"elapsed","elapsed":"P1DT"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "P1DT": T must be followed by a time component (H, M or S)`},
		{name: "refused_negative", args: evalArgs(`{"kind":"elapsed","elapsed":"-P1D"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "-P1D": negative durations are not allowed`},
		{name: "refused_zero", args: evalArgs(`{"kind":"elapsed","elapsed":"PT0S"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "PT0S": a zero duration is not allowed`},
		{name: "refused_fraction_not_last", args: evalArgs(`{"kind":"elapsed","elapsed":"P1.5DT2H"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: invalid duration "P1.5DT2H": only the smallest unit present may have a fraction`},
		{name: "refused_replies_zero", args: evalArgs(`{"kind":"missing_input","replies":0}`), wantCode: 2,
			wantStderr: `recess eval: trigger.replies: must be at least 1`},
		{name: "refused_from_deleted_account", args: evalArgs(`{"kind":"missing_input","replies":1,"from":["alice","Ghost"]}`), wantCode: 2,
			wantStderr: `recess eval: trigger.from[1]: "Ghost" is the name GitHub shows for every deleted account, not a person's login`},
		{name: "refused_unknown_kind", args: evalArgs(`{"kind":"later"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.kind: unknown kind "later" (want missing_input, elapsed, escalation_needed, any or all)`},
		{name: "refused_unknown_field", args: evalArgs(`{"kind":"elapsed","elapsed":"P1D","foo":true}`), wantCode: 2,
			wantStderr: `recess eval: trigger.foo: unknown field`},
		{name: "refused_over_max_recess", args: evalArgs(`{"kind":"elapsed","elapsed":"P91D"}`), wantCode: 2,
			wantStderr: `recess eval: trigger.elapsed: P91D is longer than max-recess P90D`},
		{name: "refused_year_over_max_recess", args: evalArgs(`{"kind":"any","of":[{"kind":"missing_input","replies":1,"expires":"P1Y"}]}`), wantCode: 2,
			wantStderr: `recess eval: trigger.of[0].expires: P1Y is longer than max-recess P90D`},
		{name: "refused_not_json", args: evalArgs(`elapsed P1D`), wantCode: 2,
			wantStderr: `recess eval: trigger: invalid JSON: invalid character 'e' at start of value`},
		// Refused flags: the message names the flag.
		{name: "missing_trigger", args: []string{"--opened-at", opened, "--now", opened}, wantCode: 2,
			wantStderr: `recess eval: --trigger: missing`},
		{name: "missing_opened_at", args: []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--now", opened}, wantCode: 2,
			wantStderr: `recess eval: --opened-at: missing`},
		{name: "bad_opened_at", args: []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--opened-at", "2026-11-21", "--now", opened}, wantCode: 2,
			wantStderr: `recess eval: --opened-at: "2026-11-21" is not an RFC 3339 time (2026-11-21T10:00:00Z)`},
		{name: "missing_now", args: []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--opened-at", opened}, wantCode: 2,
			wantStderr: `recess eval: --now: missing (or set RECESS_NOW)`},
		{name: "bad_now", args: []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--opened-at", opened, "--now", "tomorrow"}, wantCode: 2,
			wantStderr: `recess eval: --now: "tomorrow" is not an RFC 3339 time (2026-11-21T10:00:00Z)`},
		{name: "bad_recess_now", args: []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--opened-at", opened},
			env: map[string]string{"RECESS_NOW": "2026-11-22 12:00"}, wantCode: 2,
			wantStderr: `recess eval: RECESS_NOW: "2026-11-22 12:00" is not an RFC 3339 time (2026-11-21T10:00:00Z)`},
		{name: "now_before_opened_at", args: []string{"--trigger", `{"kind":"elapsed","elapsed":"P1D"}`, "--opened-at", opened, "--now", "2026-11-21T11:59:59Z"}, wantCode: 2,
			wantStderr: `recess eval: --now: is before --opened-at`},
		{name: "negative_replies", args: append(evalArgs(`{"kind":"missing_input","replies":1}`), "--replies", "-1"), wantCode: 2,
			wantStderr: `recess eval: --replies: must be a whole number from 0 to 10000`},
		{name: "replies_not_a_number", args: append(evalArgs(`{"kind":"missing_input","replies":1}`), "--replies", "two"), wantCode: 2,
			wantStderr: `recess eval: --replies: must be a whole number from 0 to 10000`},
		{name: "bad_max_recess", args: append(evalArgs(`{"kind":"elapsed","elapsed":"P1D"}`), "--max-recess", "90d"), wantCode: 2,
			wantStderr: `recess eval: --max-recess: invalid duration "90d": must start with P`},
		{name: "bad_signal", args: append(evalArgs(`{"kind":"escalation_needed","signal":"go"}`), "--signal", "go now"), wantCode: 2,
			wantStderr: `recess eval: --signal: "go now" is not a signal name (1 to 64 of A-Z, a-z, 0-9, '.', '_', '-'; or "*")`},
		{name: "unknown_flag", args: append(evalArgs(`{"kind":"elapsed","elapsed":"P1D"}`), "--verbose"), wantCode: 2,
			wantStderr: `recess eval: flag provided but not defined: -verbose (see recess eval -h)`},
		{name: "flag_without_value", args: []string{"--trigger"}, wantCode: 2,
			wantStderr: `recess eval: flag needs an argument: -trigger (see recess eval -h)`},
		{name: "stray_argument", args: append(evalArgs(`{"kind":"elapsed","elapsed":"P1D"}`), "extra"), wantCode: 2,
			wantStderr: `recess eval: unexpected argument "extra" (see recess eval -h)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := append([]string{"eval"}, tt.args...)
			code := Run(context.Background(), args, mapEnv(tt.env), strings.NewReader(tt.stdin), &stdout, &stderr)
			got := result{code, strings.TrimSuffix(stdout.String(), "\n"), strings.TrimSuffix(stderr.String(), "\n")}
			want := result{tt.wantCode, tt.wantStdout, tt.wantStderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("run(%q) mismatch (-want +got):\n%s", args, diff)
			}
			if code == 0 && strings.Count(stdout.String(), "\n") != 1 {
				t.Errorf("run(%q) stdout = %q, want exactly one line", args, stdout.String())
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "no_arguments_in_actions_is_the_action", args: nil, env: map[string]string{"GITHUB_ACTIONS": "true"}, wantCode: 2, wantStdout: "::error title=recess refused GITHUB_EVENT_NAME::GITHUB_EVENT_NAME: not set; set the command input\n"},
		{name: "no_arguments_at_a_terminal_prints_usage", args: nil, env: map[string]string{"INPUT_COMMAND": "auto"}, wantCode: 2, wantStderr: usage},
		{name: "unknown_command", args: []string{"bogus"}, wantCode: 2, wantStderr: "recess: unknown command \"bogus\"\n" + usage},
		{name: "help", args: []string{"--help"}, wantStdout: usage},
		{name: "eval_help", args: []string{"eval", "-h"}, wantStdout: evalUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), tt.args, mapEnv(tt.env), strings.NewReader(""), &stdout, &stderr)
			got := result{code, stdout.String(), stderr.String()}
			want := result{tt.wantCode, tt.wantStdout, tt.wantStderr}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("run(%q) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

type result struct {
	code           int
	stdout, stderr string
}

// evalArgs are the flags of a valid evaluation around a trigger document.
func evalArgs(trigger string) []string {
	return []string{"--trigger", trigger, "--opened-at", opened, "--now", opened}
}

func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}
