package outrider

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	outriderv1 "github.com/outrider-dev/outrider/clients/go/outrider/v1"
)

// fakeSupervisor holds the first `hold` CheckAction calls until their deadline, as a sidecar waiting
// for a human approval does, then answers.
type fakeSupervisor struct {
	outriderv1.UnimplementedSupervisorServiceServer
	hold int

	mu         sync.Mutex
	requestIDs []string
	auth       []string
	deadlines  []bool
}

func (f *fakeSupervisor) CheckAction(ctx context.Context, req *outriderv1.CheckActionRequest) (*outriderv1.CheckActionResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	_, hasDeadline := ctx.Deadline()
	f.mu.Lock()
	f.requestIDs = append(f.requestIDs, req.GetRequestId())
	f.auth = append(f.auth, md.Get("authorization")...)
	f.deadlines = append(f.deadlines, hasDeadline)
	n := len(f.requestIDs)
	f.mu.Unlock()
	if n <= f.hold {
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	return &outriderv1.CheckActionResponse{Allowed: true, Reason: "approved"}, nil
}

// snapshot copies what the fake has seen (a handler may still be running when a test reads it).
func (f *fakeSupervisor) snapshot() (requestIDs, auth []string, deadlines []bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requestIDs...), append([]string(nil), f.auth...), append([]bool(nil), f.deadlines...)
}

func (f *fakeSupervisor) GetAgent(ctx context.Context, req *outriderv1.GetAgentRequest) (*outriderv1.GetAgentResponse, error) {
	st, err := status.New(codes.NotFound, "no agent is named "+req.GetAgentId()).WithDetails(
		&errdetails.ErrorInfo{Reason: "NOT_FOUND", Domain: "outrider.dev", Metadata: map[string]string{"field": "agent_id"}})
	if err != nil {
		return nil, err
	}
	return nil, st.Err()
}

func serve(t *testing.T, f *fakeSupervisor) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	outriderv1.RegisterSupervisorServiceServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func TestCheckActionReattachesWithTheSameRequestID(t *testing.T) {
	fake := &fakeSupervisor{hold: 2}
	client, err := New(serve(t, fake), WithToken("otr_secret"), WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	r, err := client.CheckAction(context.Background(), &outriderv1.CheckActionRequest{AgentId: "a", Action: "deploy"})
	if err != nil || !r.GetAllowed() || r.GetReason() != "approved" {
		t.Fatalf("CheckAction = %v, %v; want the answer of the third attempt", r, err)
	}
	requestIDs, auth, _ := fake.snapshot()
	if len(requestIDs) != 3 || requestIDs[0] == "" ||
		requestIDs[1] != requestIDs[0] || requestIDs[2] != requestIDs[0] {
		t.Fatalf("request ids = %q; want three equal, non-empty ids", requestIDs)
	}
	for _, a := range auth {
		if a != "Bearer otr_secret" {
			t.Fatalf("authorization = %q", auth)
		}
	}
}

func TestCheckActionKeepsTheCallersRequestIDAndStopsWithTheContext(t *testing.T) {
	fake := &fakeSupervisor{hold: 1000}
	client, err := New(serve(t, fake), WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = client.CheckAction(ctx, &outriderv1.CheckActionRequest{AgentId: "a", Action: "deploy", RequestId: "mine"})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("err = %v; want DEADLINE_EXCEEDED once the caller's context ends", err)
	}
	requestIDs, _, _ := fake.snapshot()
	if len(requestIDs) < 2 || len(requestIDs) > 11 {
		t.Fatalf("%d attempts; want a few 100 ms attempts within 1 s", len(requestIDs))
	}
	for _, id := range requestIDs {
		if id != "mine" {
			t.Fatalf("request ids = %q; want the caller's", requestIDs)
		}
	}
}

func TestCallsGetTheDefaultDeadlineAndErrorInfo(t *testing.T) {
	fake := &fakeSupervisor{}
	client, err := New(serve(t, fake))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	if _, err := client.Supervisor.CheckAction(context.Background(), &outriderv1.CheckActionRequest{}); err != nil {
		t.Fatal(err)
	}
	_, auth, deadlines := fake.snapshot()
	if !deadlines[0] || len(auth) != 0 {
		t.Fatalf("deadline sent = %v, authorization = %q; want a deadline and no token", deadlines, auth)
	}
	_, err = client.Supervisor.GetAgent(context.Background(), &outriderv1.GetAgentRequest{AgentId: "ghost"})
	info := ErrorInfo(err)
	if status.Code(err) != codes.NotFound || info == nil || info.GetReason() != "NOT_FOUND" || info.GetMetadata()["field"] != "agent_id" {
		t.Fatalf("err = %v, info = %v", err, info)
	}
	if ErrorInfo(nil) != nil || ErrorInfo(context.Canceled) != nil {
		t.Fatal("ErrorInfo of a non-status error must be nil")
	}
}
