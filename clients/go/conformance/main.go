// Command conformance is the Go conformance driver: it runs tests/conformance/scenarios.json against a
// live sidecar through the generated stubs (CheckAction through outrider.Client.CheckAction; a `stream`
// step through the raw SupervisorService.CheckActions stream, whose answers it sorts by id). The
// rules are those of tests/conformance/README.md, shared by the Python, TypeScript and Java drivers.
//
//	OUTRIDER_CONFORMANCE_ADDRESS=127.0.0.1:50051 OUTRIDER_CONFORMANCE_TOKEN_OPERATOR=... \
//	OUTRIDER_CONFORMANCE_TOKEN_AGENT=... go run ./conformance
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/outrider-dev/outrider/clients/go/outrider"
	outriderv1 "github.com/outrider-dev/outrider/clients/go/outrider/v1"
)

type step struct {
	Call     string            `json:"call"`
	Stream   string            `json:"stream"`
	Requests []any             `json:"requests"`
	As       any               `json:"as"`
	Request  any               `json:"request"`
	Expect   map[string]any    `json:"expect"`
	Capture  map[string]string `json:"capture"`
}

func (st step) name() string {
	if st.Stream != "" {
		return st.Stream
	}
	return st.Call
}

type scenario struct {
	Name  string `json:"name"`
	Steps []step `json:"steps"`
}

type suite struct {
	Format      string                    `json:"format"`
	Credentials map[string]map[string]any `json:"credentials"`
	Defaults    struct {
		As any `json:"as"`
	} `json:"defaults"`
	BeforeEach []step     `json:"before_each"`
	Scenarios  []scenario `json:"scenarios"`
}

type driver struct {
	client *outrider.Client
	stubs  map[string]any
	tokens map[string]string
	asDef  any
}

var variable = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)\}`)

// absent stands for a field the response JSON leaves out (proto3 JSON omits zero values).
type absentT struct{}

var absent = absentT{}

func main() {
	path := os.Getenv("OUTRIDER_CONFORMANCE_SCENARIOS")
	if path == "" {
		path = "../../tests/conformance/scenarios.json"
	}
	address := os.Getenv("OUTRIDER_CONFORMANCE_ADDRESS")
	raw, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	var s suite
	if err := json.Unmarshal(raw, &s); err != nil || s.Format != "outrider-conformance/1" {
		fmt.Fprintf(os.Stderr, "conformance: %s is not an outrider-conformance/1 file (%v)\n", path, err)
		os.Exit(2)
	}
	client, err := outrider.New(address)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	defer client.Close()
	d := &driver{
		client: client,
		stubs: map[string]any{
			"SupervisorService": client.Supervisor, "RecoveryService": client.Recovery,
			"SafeguardService": client.Safeguard, "AccessService": client.Access,
		},
		tokens: map[string]string{},
		asDef:  s.Defaults.As,
	}
	for name := range s.Credentials {
		d.tokens[name] = os.Getenv("OUTRIDER_CONFORMANCE_TOKEN_" + strings.ToUpper(name))
	}
	passed, failed := 0, 0
	for _, sc := range s.Scenarios {
		if err := d.scenario(s.BeforeEach, sc); err != nil {
			failed++
			fmt.Printf("FAIL %s\n     %v\n", sc.Name, err)
		} else {
			passed++
			fmt.Printf("ok   %s\n", sc.Name)
		}
	}
	fmt.Printf("conformance go: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

func (d *driver) scenario(before []step, sc scenario) error {
	vars := map[string]string{"run": outrider.NewRequestID()[:12]} // fresh per scenario run
	for i, st := range before {
		if err := d.step(st, vars); err != nil {
			return fmt.Errorf("before_each %d (%s): %w", i+1, st.name(), err)
		}
	}
	for i, st := range sc.Steps {
		if err := d.step(st, vars); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, st.name(), err)
		}
	}
	return nil
}

func (d *driver) step(st step, vars map[string]string) error {
	who := st.As
	if who == nil {
		who = d.asDef
	}
	if who == nil {
		who = "operator"
	}
	ctx, err := d.credential(context.Background(), who, vars)
	if err != nil {
		return err
	}
	if st.Stream != "" {
		return d.streamStep(ctx, st, vars)
	}
	request, err := substitute(orEmpty(st.Request), vars)
	if err != nil {
		return err
	}
	response, callErr, err := d.call(ctx, st.Call, request)
	if err != nil {
		return err
	}
	expectAny, err := substitute(orEmpty(st.Expect), vars)
	if err != nil {
		return err
	}
	expect := expectAny.(map[string]any)
	var problems []string
	if wantErr, ok := expect["error"]; ok {
		if callErr == nil {
			code := wantErr.(map[string]any)["code"]
			return fmt.Errorf("expected error %v, got response %s", code, compact(response))
		}
		problems = match(wantErr, callErr, "error")
	} else {
		if callErr != nil {
			return fmt.Errorf("unexpected error %v: %v", callErr["code"], callErr["message"])
		}
		problems = match(orEmpty(expect["response"]), response, "response")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	for name, dotted := range st.Capture {
		v, err := lookup(response, dotted)
		if err != nil {
			return err
		}
		vars[name] = v
	}
	return nil
}

func (d *driver) credential(ctx context.Context, who any, vars map[string]string) (context.Context, error) {
	switch w := who.(type) {
	case map[string]any:
		bearer, err := substitute(w["bearer"], vars)
		if err != nil {
			return nil, err
		}
		return metadata.AppendToOutgoingContext(ctx, "authorization", fmt.Sprintf("Bearer %v", bearer)), nil
	case string:
		if w == "anonymous" {
			return ctx, nil
		}
		if d.tokens[w] == "" {
			return nil, fmt.Errorf("no token for credential %q", w)
		}
		return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+d.tokens[w]), nil
	}
	return nil, fmt.Errorf("bad credential %v", who)
}

// streamStep runs a `stream` step: it opens the stream, sends every request in order, half-closes,
// reads every answer until the stream ends, and matches the answers sorted by id and the stream's end.
func (d *driver) streamStep(ctx context.Context, st step, vars map[string]string) error {
	if len(st.Capture) > 0 {
		return errors.New("capture is not supported on a stream step")
	}
	if st.Stream != "SupervisorService.CheckActions" {
		return fmt.Errorf("unknown stream %q", st.Stream)
	}
	requests := make([]*outriderv1.CheckActionsRequest, len(st.Requests))
	for i, raw := range st.Requests {
		r, err := substitute(raw, vars)
		if err != nil {
			return err
		}
		body, err := json.Marshal(r)
		if err != nil {
			return err
		}
		requests[i] = &outriderv1.CheckActionsRequest{}
		if err := protojson.Unmarshal(body, requests[i]); err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	stream, err := d.client.Supervisor.CheckActions(ctx)
	if err != nil {
		return fmt.Errorf("opening the stream: %w", err)
	}
	for _, r := range requests {
		if err := stream.Send(r); err != nil {
			break // the stream ended (io.EOF): Recv tells how
		}
	}
	if err := stream.CloseSend(); err != nil {
		return fmt.Errorf("half-closing: %w", err)
	}
	type answer struct {
		id  uint64
		doc any
	}
	var answers []answer
	var streamErr error
	for {
		resp, err := stream.Recv()
		if err != nil {
			if err != io.EOF {
				streamErr = err
			}
			break
		}
		text, err := protojson.Marshal(resp)
		if err != nil {
			return err
		}
		var doc any
		if err := json.Unmarshal(text, &doc); err != nil {
			return err
		}
		answers = append(answers, answer{resp.GetId(), doc})
	}
	sort.SliceStable(answers, func(i, j int) bool { return answers[i].id < answers[j].id })
	responses := make([]any, len(answers))
	for i, a := range answers {
		responses[i] = a.doc
	}
	expectAny, err := substitute(orEmpty(st.Expect), vars)
	if err != nil {
		return err
	}
	expect := expectAny.(map[string]any)
	var problems []string
	if wantErr, ok := expect["error"]; ok {
		if streamErr == nil {
			code := wantErr.(map[string]any)["code"]
			return fmt.Errorf("expected the stream to end with %v, it ended OK after %s", code, compact(responses))
		}
		problems = match(wantErr, errorJSON(streamErr), "error")
	} else if streamErr != nil {
		e := errorJSON(streamErr)
		return fmt.Errorf("the stream ended with %v: %v", e["code"], e["message"])
	}
	if want, ok := expect["responses"]; ok {
		problems = append(problems, match(want, responses, "responses")...)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// call runs one unary RPC by "Service.Method" on the generated stub: (response JSON, nil) or
// (nil, error JSON).
func (d *driver) call(ctx context.Context, name string, request any) (any, map[string]any, error) {
	service, method, _ := strings.Cut(name, ".")
	stub, ok := d.stubs[service]
	if !ok {
		return nil, nil, fmt.Errorf("unknown service %q", service)
	}
	fn := reflect.ValueOf(stub).MethodByName(method)
	if !fn.IsValid() || fn.Type().NumIn() != 3 || fn.Type().NumOut() != 2 {
		return nil, nil, fmt.Errorf("unknown or streaming method %q", name)
	}
	req, ok := reflect.New(fn.Type().In(1).Elem()).Interface().(proto.Message)
	if !ok {
		return nil, nil, fmt.Errorf("unknown method %q", name)
	}
	body, err := json.Marshal(request)
	if err != nil {
		return nil, nil, err
	}
	if err := protojson.Unmarshal(body, req); err != nil {
		return nil, nil, fmt.Errorf("request: %w", err)
	}
	var resp proto.Message
	var callErr error
	if name == "SupervisorService.CheckAction" {
		resp, callErr = d.client.CheckAction(ctx, req.(*outriderv1.CheckActionRequest))
	} else {
		out := fn.Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(req)})
		if e := out[1].Interface(); e != nil {
			callErr = e.(error)
		} else {
			resp = out[0].Interface().(proto.Message)
		}
	}
	if callErr != nil {
		return nil, errorJSON(callErr), nil
	}
	text, err := protojson.Marshal(resp)
	if err != nil {
		return nil, nil, err
	}
	var doc any
	if err := json.Unmarshal(text, &doc); err != nil {
		return nil, nil, err
	}
	return doc, nil, nil
}

func errorJSON(err error) map[string]any {
	st := status.Convert(err)
	out := map[string]any{
		"code": codeName(st.Code().String()), "message": st.Message(), "reason": "", "domain": "", "field": "",
	}
	if info := outrider.ErrorInfo(err); info != nil {
		out["reason"], out["domain"], out["field"] = info.GetReason(), info.GetDomain(), info.GetMetadata()["field"]
	}
	return out
}

// codeName turns grpc-go's "InvalidArgument" into the canonical "INVALID_ARGUMENT".
func codeName(camel string) string {
	var b strings.Builder
	for i, r := range camel {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// ---- the matching rules (identical in every driver) ---------------------------------------------

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

func substitute(v any, vars map[string]string) (any, error) {
	switch t := v.(type) {
	case string:
		var missing string
		out := variable.ReplaceAllStringFunc(t, func(m string) string {
			name := variable.FindStringSubmatch(m)[1]
			val, ok := vars[name]
			if !ok {
				missing = name
			}
			return val
		})
		if missing != "" {
			return nil, fmt.Errorf("unknown variable ${%s}", missing)
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			s, err := substitute(e, vars)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			s, err := substitute(e, vars)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	}
	return v, nil
}

func compact(v any) string {
	if v == absent {
		return "nothing"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func match(expected, actual any, path string) []string {
	if m, ok := expected.(map[string]any); ok && len(m) == 1 {
		for op, arg := range m {
			if strings.HasPrefix(op, "$") {
				return matchOp(op, arg, actual, path)
			}
		}
	}
	switch want := expected.(type) {
	case map[string]any:
		if actual == absent {
			actual = map[string]any{}
		}
		got, ok := actual.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: expected an object, got %s", path, compact(actual))}
		}
		var out []string
		for k, w := range want {
			g, present := got[k]
			if !present {
				g = absent
			}
			out = append(out, match(w, g, path+"."+k)...)
		}
		return out
	case []any:
		if actual == absent {
			actual = []any{}
		}
		got, ok := actual.([]any)
		if !ok || len(got) != len(want) {
			return []string{fmt.Sprintf("%s: expected %d items, got %s", path, len(want), compact(actual))}
		}
		var out []string
		for i := range want {
			out = append(out, match(want[i], got[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if actual == absent {
		if expected == nil || expected == false || expected == "" || expected == float64(0) {
			return nil
		}
		return []string{fmt.Sprintf("%s: expected %s, got nothing", path, compact(expected))}
	}
	if reflect.TypeOf(expected) == reflect.TypeOf(actual) && expected == actual {
		return nil
	}
	return []string{fmt.Sprintf("%s: expected %s, got %s", path, compact(expected), compact(actual))}
}

func matchOp(op string, arg, actual any, path string) []string {
	text := ""
	if actual != absent {
		s, ok := actual.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: expected a string for %s, got %s", path, op, compact(actual))}
		}
		text = s
	}
	pattern, _ := arg.(string)
	var ok bool
	switch op {
	case "$contains":
		ok = strings.Contains(text, pattern)
	case "$matches":
		re, err := regexp.Compile(pattern)
		if err != nil {
			return []string{fmt.Sprintf("%s: bad pattern %q: %v", path, pattern, err)}
		}
		ok = re.MatchString(text)
	default:
		return []string{fmt.Sprintf("%s: unknown matcher %s", path, op)}
	}
	if ok {
		return nil
	}
	return []string{fmt.Sprintf("%s: expected %s %s, got %s", path, op, compact(pattern), compact(text))}
}

func lookup(doc any, dotted string) (string, error) {
	v := doc
	for _, part := range strings.Split(dotted, ".") {
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[part]
			if !ok {
				return "", fmt.Errorf("capture: the response has no %s", dotted)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(t) {
				return "", fmt.Errorf("capture: the response has no %s", dotted)
			}
			v = t[i]
		default:
			return "", fmt.Errorf("capture: the response has no %s", dotted)
		}
	}
	switch t := v.(type) {
	case string:
		return t, nil
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), nil
	}
	return "", fmt.Errorf("capture: %s is not a string or number", dotted)
}
