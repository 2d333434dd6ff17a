package outrider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
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

// fakeStreams answers CheckActions as the sidecar does: in its own order, matched by id. It holds every
// answer until `batch` requests have come (or the client half-closes), then answers them newest first,
// so answers come out of order. An action "error" is answered with an INVALID_ARGUMENT error answer;
// an agent "intruder" ends the stream with PERMISSION_DENIED NOT_YOUR_AGENT.
type fakeStreams struct {
	outriderv1.UnimplementedSupervisorServiceServer
	batch int

	mu       sync.Mutex
	streams  int
	ids      []uint64
	auth     []string
	requests []*outriderv1.CheckActionsRequest
}

func (f *fakeStreams) CheckActions(stream outriderv1.SupervisorService_CheckActionsServer) error {
	md, _ := metadata.FromIncomingContext(stream.Context())
	f.mu.Lock()
	f.streams++
	f.auth = append(f.auth, md.Get("authorization")...)
	f.mu.Unlock()
	var held []*outriderv1.CheckActionsRequest
	flush := func() error {
		for i := len(held) - 1; i >= 0; i-- {
			if err := stream.Send(f.answer(held[i])); err != nil {
				return err
			}
		}
		held = nil
		return nil
	}
	for {
		req, err := stream.Recv()
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.ids = append(f.ids, req.GetId())
		f.requests = append(f.requests, req)
		f.mu.Unlock()
		if req.GetCheck().GetAgentId() == "intruder" {
			st, _ := status.New(codes.PermissionDenied, "this credential is not agent intruder").WithDetails(
				&errdetails.ErrorInfo{Reason: "NOT_YOUR_AGENT", Domain: "outrider.dev", Metadata: map[string]string{"field": "check.agent_id"}})
			return st.Err()
		}
		held = append(held, req)
		f.mu.Lock()
		full := len(held) >= f.batch
		f.mu.Unlock()
		if full {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

func (f *fakeStreams) answer(req *outriderv1.CheckActionsRequest) *outriderv1.CheckActionsResponse {
	if req.GetCheck().GetAction() == "error" {
		return &outriderv1.CheckActionsResponse{Id: req.GetId(), Result: &outriderv1.CheckActionsResponse_Error{
			Error: &outriderv1.CheckActionsError{Code: 3, Message: "action must not be empty", Reason: "INVALID_FIELD", Field: "check.action"}}}
	}
	return &outriderv1.CheckActionsResponse{Id: req.GetId(), Result: &outriderv1.CheckActionsResponse_Response{
		Response: &outriderv1.CheckActionResponse{Allowed: true, Reason: req.GetCheck().GetAction()}}}
}

func serveStreams(t *testing.T, f *fakeStreams) *Client {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	outriderv1.RegisterSupervisorServiceServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	client, err := New(lis.Addr().String(), WithToken("otr_secret"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func within(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCheckStreamMatchesOutOfOrderAnswersToConcurrentCallers(t *testing.T) {
	const n = 8
	fake := &fakeStreams{batch: n}
	client := serveStreams(t, fake)
	s, err := client.CheckStream(within(t))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			action := fmt.Sprintf("action-%d", i)
			r, err := s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "a", Action: action})
			if err == nil && (!r.GetAllowed() || r.GetReason() != action) {
				err = fmt.Errorf("check %s got the answer %v", action, r)
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	ids := append([]uint64(nil), fake.ids...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i, id := range ids {
		if id != uint64(i+1) {
			t.Fatalf("ids = %v; want 1..%d, one each", fake.ids, n)
		}
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.streams != 1 || len(fake.auth) != 1 || fake.auth[0] != "Bearer otr_secret" {
		t.Fatalf("streams = %d, authorization = %q; want one stream with the token", fake.streams, fake.auth)
	}
	for _, r := range fake.requests {
		if len(r.GetCheck().GetRequestId()) != 32 {
			t.Fatalf("request_id = %q; want a random one", r.GetCheck().GetRequestId())
		}
	}
}

func TestCheckStreamErrorAnswerFailsOnlyThatCheckAsTheUnaryCallWould(t *testing.T) {
	fake := &fakeStreams{batch: 1}
	client := serveStreams(t, fake)
	s, err := client.CheckStream(within(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "a", Action: "error"})
	info := ErrorInfo(err)
	if status.Code(err) != codes.InvalidArgument || status.Convert(err).Message() != "action must not be empty" ||
		info == nil || info.GetReason() != "INVALID_FIELD" || info.GetDomain() != "outrider.dev" ||
		info.GetMetadata()["field"] != "action" {
		t.Fatalf("err = %v, info = %v; want INVALID_ARGUMENT INVALID_FIELD on field action", err, info)
	}
	ctx := metadata.AppendToOutgoingContext(within(t), "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	r, err := s.Check(ctx, &outriderv1.CheckActionRequest{AgentId: "a", Action: "deploy", RequestId: "mine"})
	if err != nil || r.GetReason() != "deploy" {
		t.Fatalf("the next check = %v, %v; want its answer on the same stream", r, err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	last := fake.requests[len(fake.requests)-1]
	if fake.streams != 1 || last.GetCheck().GetRequestId() != "mine" || last.GetTraceparent() == "" {
		t.Fatalf("streams = %d, last request = %v; want one stream, the caller's request id and traceparent", fake.streams, last)
	}
}

func TestCheckStreamBrokenStreamFailsPendingChecksAndIsNeverReused(t *testing.T) {
	fake := &fakeStreams{batch: 100} // nothing is answered before the stream breaks
	client := serveStreams(t, fake)
	s, err := client.CheckStream(within(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pending := make(chan error, 1)
	go func() {
		_, err := s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "a", Action: "deploy"})
		pending <- err
	}()
	for {
		fake.mu.Lock()
		sent := len(fake.ids)
		fake.mu.Unlock()
		if sent == 1 {
			break
		}
		time.Sleep(time.Millisecond) // the fake server has no clock to wait on; polls the arrival
	}
	_, err = s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "intruder", Action: "deploy"})
	for _, e := range []error{err, <-pending} {
		info := ErrorInfo(e)
		if status.Code(e) != codes.PermissionDenied || info == nil || info.GetReason() != "NOT_YOUR_AGENT" {
			t.Fatalf("err = %v; want the stream's PERMISSION_DENIED NOT_YOUR_AGENT for both checks", e)
		}
	}
	fake.mu.Lock()
	fake.batch = 1
	fake.mu.Unlock()
	r, err := s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "a", Action: "again"})
	if err != nil || r.GetReason() != "again" {
		t.Fatalf("check after the break = %v, %v", r, err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.streams != 2 {
		t.Fatalf("streams = %d; want a second stream after the first broke", fake.streams)
	}
}

func TestCheckStreamCloseWaitsForPendingAnswers(t *testing.T) {
	fake := &fakeStreams{batch: 100} // answered only once the client half-closes
	client := serveStreams(t, fake)
	s, err := client.CheckStream(within(t))
	if err != nil {
		t.Fatal(err)
	}
	answers := make(chan error, 3)
	for i := 0; i < 3; i++ {
		go func() {
			_, err := s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "a", Action: "deploy"})
			answers <- err
		}()
	}
	for {
		fake.mu.Lock()
		sent := len(fake.ids)
		fake.mu.Unlock()
		if sent == 3 {
			break
		}
		time.Sleep(time.Millisecond) // polls the arrival at the fake server
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	s.mu.Lock()
	ended := s.conn == nil
	s.mu.Unlock()
	if !ended {
		t.Fatal("Close returned before the stream ended")
	}
	for i := 0; i < 3; i++ {
		if err := <-answers; err != nil {
			t.Fatalf("pending check = %v; want its answer", err)
		}
	}
	if _, err := s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "a", Action: "x"}); !errors.Is(err, ErrCheckStreamClosed) {
		t.Fatalf("check after Close = %v; want ErrCheckStreamClosed", err)
	}
}

func TestCheckStreamACallerThatGivesUpLeavesTheStreamUsable(t *testing.T) {
	fake := &fakeStreams{batch: 2} // the first check is answered only with the second
	client := serveStreams(t, fake)
	s, err := client.CheckStream(within(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(within(t))
	cancel()
	if _, err := s.Check(ctx, &outriderv1.CheckActionRequest{AgentId: "a", Action: "first"}); status.Code(err) != codes.Canceled {
		t.Fatalf("a check whose context is done = %v; want CANCELED", err)
	}
	r, err := s.Check(within(t), &outriderv1.CheckActionRequest{AgentId: "a", Action: "second"})
	if err != nil || r.GetReason() != "second" {
		t.Fatalf("the next check = %v, %v; want its own answer (the first one's is dropped)", r, err)
	}
}
