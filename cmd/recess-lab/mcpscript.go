package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/recess-action/recess/internal/action"
	"github.com/recess-action/recess/internal/text"
)

// recess-lab mcp-script: the placeholder lead of the shipped agent workflow. It
// stands where a model would: it starts `recess mcp` as a child process,
// speaks MCP to it over stdio with the SDK's client, and makes the calls a
// model would make, scripted. On a first run it asks one question and
// recesses; on a resumed run it adjourns with an answer that quotes what
// people said. So the example workflow works end to end without a model,
// through the very tools a model gets.

const mcpScriptUsage = `usage: recess-lab mcp-script [--question TEXT] [--trigger JSON] [--recess PATH] [-- MCP-FLAG...]
       recess-lab mcp-script [--question TEXT] [--trigger JSON] --from-step

The placeholder lead: a scripted MCP client that runs "recess mcp" (the recess
binary on PATH, or --recess) and calls its tools as a model would. With no
resume_context (a first run) it queues --question with reply and calls recess
with the fields of --trigger (replies_needed, elapsed, ...); with one (a
resumed run) it calls adjourn with a reply that quotes each comment since.

The server's settings are the flags after "--" ("recess mcp" gets them as
given: --verdict-file, --correlation-id, --discussion, --token, ...) and the
environment, which the child inherits: RECESS_VERDICT_FILE,
RECESS_CORRELATION_ID, RECESS_DISCUSSION (see "recess mcp -h").
RECESS_RESUME_CONTEXT tells the script a resumed run from a first one (and
is the server's fallback too). RECESS_PROMPT, when set (the claim step's
prompt output), is printed first, as a model would be given it.

With --from-step (recess-lab act, in place of a model's step) the server is
the one the model step's inputs configure: RECESS_STEP_INPUTS names them, and
RECESS_STEP_INPUT_<NAME> holds each; an MCP configuration ({"mcpServers": ...})
written in one, or in a file one names, with a server whose command is recess
and whose first argument is mcp, gives the command and its flags.
`

const (
	defaultScriptQuestion = "Placeholder agent here. Before I answer: which option do you prefer, and why? " +
		"I will come back when two people have replied (or in a week)."
	defaultScriptTrigger = `{"replies_needed":2,"elapsed":"P7D"}`
	// scriptQuoteRunes bounds each quoted comment in the answer.
	scriptQuoteRunes = 280
)

func runMCPScript(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("recess-lab mcp-script", flag.ContinueOnError)
	question := fs.String("question", defaultScriptQuestion, "the question a first run asks before it recesses")
	trigger := fs.String("trigger", defaultScriptTrigger, "what a first run waits for: the recess tool's trigger fields as a JSON object")
	recess := fs.String("recess", "recess", "the recess binary whose mcp server the script calls (a path, or a name on PATH)")
	fromStep := fs.Bool("from-step", false, "start the recess mcp server the inputs of the model step it stands for configure (RECESS_STEP_INPUTS)")
	if code, ok := action.ParseFlags(fs, args, mcpScriptUsage, stdout, stderr); !ok {
		return code
	}
	if dash := len(args) - fs.NArg() - 1; fs.NArg() > 0 && (dash < 0 || args[dash] != "--") {
		fmt.Fprintf(stderr, "recess-lab mcp-script: unexpected argument %q (flags for recess mcp go after --)\n", fs.Arg(0))
		return 2
	}
	command, serverArgs := *recess, fs.Args()
	if *fromStep {
		if fs.NArg() > 0 {
			fmt.Fprintln(stderr, "recess-lab mcp-script: --from-step takes the server's flags from the step's inputs, not after --")
			return 2
		}
		inputs := map[string]string{}
		for _, name := range strings.Fields(getenv(stepInputsVar)) {
			inputs[name] = getenv(stepInputVar(name))
		}
		srv, err := findRecessServer(inputs, os.ReadFile)
		if err != nil {
			fmt.Fprintf(stderr, "recess-lab mcp-script: --from-step: %v\n", err)
			return 1
		}
		command, serverArgs = srv.Command, srv.Args
		var flags []string
		for _, a := range serverArgs {
			if strings.HasPrefix(a, "--") {
				flags = append(flags, a)
			}
		}
		fmt.Fprintf(stdout, "== the step's recess mcp server: %s mcp %s\n", command, strings.Join(flags, " "))
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(*trigger), &fields); err != nil {
		fmt.Fprintln(stderr, "recess-lab mcp-script: --trigger: not a JSON object")
		return 2
	}
	bin, err := exec.LookPath(command)
	if err != nil {
		fmt.Fprintf(stderr, "recess-lab mcp-script: the recess binary: %v\n", err)
		return 1
	}
	server := exec.Command(bin, append([]string{"mcp"}, serverArgs...)...)
	server.Stderr = stderr
	if err := mcpScript(ctx, server, getenv, *question, fields, stdout); err != nil {
		fmt.Fprintf(stderr, "recess-lab mcp-script: %v\n", err)
		return 1
	}
	return 0
}

// mcpScript connects to the server the command starts (its environment is
// the caller's when server.Env is nil) and plays one run.
func mcpScript(ctx context.Context, server *exec.Cmd, getenv func(string) string, question string, trigger map[string]any, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if p := getenv("RECESS_PROMPT"); p != "" {
		fmt.Fprintf(out, "== the prompt this run was handed (RECESS_PROMPT)\n%s\n", p)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "recess-mcp-script", Version: "v1"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		return fmt.Errorf("connect to recess mcp: %w", err)
	}
	defer s.Close()

	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	fmt.Fprintf(out, "== recess mcp offers: %s\n", strings.Join(names, ", "))

	raw := getenv("RECESS_RESUME_CONTEXT")
	if raw == "" {
		if err := callTool(ctx, s, out, "reply", map[string]any{"body": question}); err != nil {
			return err
		}
		args := map[string]any{"summary": "placeholder lead: asked one question, waiting for answers"}
		maps.Copy(args, trigger)
		return callTool(ctx, s, out, "recess", args)
	}
	rc, err := action.DecodeResumeContext([]byte(raw))
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Placeholder agent, resumed (%s). Here is what I got since I asked:\n", rc.FiredBy)
	if len(rc.HistorySince) == 0 {
		b.WriteString("\nNo one wrote.\n")
	}
	for _, e := range rc.HistorySince {
		fmt.Fprintf(&b, "\n> **@%s**: %s\n", text.Clip(e.Author, 64), text.Clip(strings.Join(strings.Fields(e.Body), " "), scriptQuoteRunes))
	}
	b.WriteString("\nA real lead would answer now; replace the lead job of agent.yml with your agent.")
	return callTool(ctx, s, out, "adjourn", map[string]any{
		"summary": fmt.Sprintf("placeholder lead: quoted %s and adjourned", text.Count(len(rc.HistorySince), "comment", "comments")),
		"replies": []map[string]string{{"body": b.String()}},
	})
}

// callTool calls one tool and logs it; a refusal is an error, as it would
// be a mistake of the script, not of the people in the discussion.
func callTool(ctx context.Context, s *mcp.ClientSession, out io.Writer, name string, args map[string]any) error {
	fmt.Fprintf(out, "== call %s\n", name)
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("call %s: %w", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if res.IsError {
		return fmt.Errorf("tool %s: %s", name, text)
	}
	fmt.Fprintf(out, "%s\n", text)
	return nil
}
