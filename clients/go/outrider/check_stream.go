package outrider

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	outriderv1 "github.com/outrider-dev/outrider/clients/go/outrider/v1"
)

// ErrCheckStreamClosed is returned by Check after Close.
var ErrCheckStreamClosed = errors.New("outrider: check stream closed")

// errorDomain is the google.rpc.ErrorInfo domain of the sidecar's errors.
const errorDomain = "outrider.dev"

// CheckStream multiplexes many checks over one long-lived SupervisorService.CheckActions stream. It is
// safe for concurrent use: each Check gets the next id of a counter, and answers, which come in the
// order decisions finish, are matched back to their callers by id.
//
// A request's own failure fails that Check with the status error the unary CheckAction would return
// (same code, message, and ErrorInfo reason and field, see ErrorInfo). When the stream itself ends with
// an error (another agent's id, a revoked credential, a lost connection), every pending Check fails with
// that error and the next Check opens a new stream: a broken stream is never reused.
type CheckStream struct {
	client *Client
	ctx    context.Context

	mu     sync.Mutex
	conn   *checkConn // the open stream; nil before the first Check and after one broke
	nextID uint64
	closed bool
}

// checkConn is one CheckActions stream and the checks waiting for its answers.
type checkConn struct {
	stream   outriderv1.SupervisorService_CheckActionsClient
	cancel   context.CancelFunc
	sendMu   sync.Mutex // grpc-go allows one SendMsg at a time per stream
	sentLast bool       // CloseSend was called (under sendMu)

	mu      sync.Mutex
	pending map[uint64]chan checkResult
	done    chan struct{} // closed when the stream has ended
	err     error         // why it ended; nil when it ended OK
}

type checkResult struct {
	response *outriderv1.CheckActionResponse
	err      error
}

// CheckStream opens a check stream. ctx bounds the life of every stream it opens (cancel it to abandon
// them); it carries no per-check deadline: give each Check its own context. The client's token is sent
// as on unary calls. The first stream is opened here, so an unreachable sidecar shows at once.
func (c *Client) CheckStream(ctx context.Context) (*CheckStream, error) {
	s := &CheckStream{client: c, ctx: ctx}
	s.mu.Lock()
	defer s.mu.Unlock()
	conn, err := s.open()
	if err != nil {
		return nil, err
	}
	s.conn = conn
	return s, nil
}

// open starts a stream and its reader. Called with s.mu held.
func (s *CheckStream) open() (*checkConn, error) {
	ctx, cancel := context.WithCancel(s.ctx)
	stream, err := s.client.Supervisor.CheckActions(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	conn := &checkConn{stream: stream, cancel: cancel, pending: map[uint64]chan checkResult{}, done: make(chan struct{})}
	go s.read(conn)
	return conn, nil
}

// read delivers the answers of conn until it ends, then fails whatever is still pending.
func (s *CheckStream) read(conn *checkConn) {
	for {
		answer, err := conn.stream.Recv()
		if err != nil {
			s.end(conn, err)
			return
		}
		conn.mu.Lock()
		ch, ok := conn.pending[answer.GetId()]
		delete(conn.pending, answer.GetId())
		conn.mu.Unlock()
		if ok { // not ok: its caller gave up (context done)
			ch <- resultOf(answer)
		}
	}
}

func (s *CheckStream) end(conn *checkConn, err error) {
	s.mu.Lock()
	if s.conn == conn {
		s.conn = nil // the next Check opens a new stream
	}
	conn.mu.Lock()
	pending := conn.pending
	conn.pending = nil
	if err != io.EOF {
		conn.err = err
	}
	conn.mu.Unlock()
	s.mu.Unlock()
	conn.cancel()
	failure := err
	if err == io.EOF {
		failure = status.Error(codes.Unavailable, "the CheckActions stream ended before answering")
	}
	for _, ch := range pending {
		ch <- checkResult{err: failure}
	}
	close(conn.done)
}

func resultOf(answer *outriderv1.CheckActionsResponse) checkResult {
	if e := answer.GetError(); e != nil {
		return checkResult{err: statusError(e)}
	}
	if r := answer.GetResponse(); r != nil {
		return checkResult{response: r}
	}
	return checkResult{err: status.Errorf(codes.Internal, "CheckActions answered id %d with neither a response nor an error", answer.GetId())}
}

// statusError is the error the unary CheckAction would have returned: the code and message, and a
// google.rpc.ErrorInfo with the reason and the field as the unary call names it ("action", where the
// stream says "check.action").
func statusError(e *outriderv1.CheckActionsError) error {
	st := status.New(codes.Code(e.GetCode()), e.GetMessage())
	info := &errdetails.ErrorInfo{Reason: e.GetReason(), Domain: errorDomain}
	if field := strings.TrimPrefix(e.GetField(), "check."); field != "" {
		info.Metadata = map[string]string{"field": field}
	}
	if withInfo, err := st.WithDetails(info); err == nil {
		st = withInfo
	}
	return st.Err()
}

// Check asks "may this agent do this action?" on the stream, as CheckAction does: a block is an answer
// (Allowed false), not an error, and a request without a request_id gets a random one first. It waits
// for the answer until ctx is done (the sidecar may be holding the check for a human approval); the
// sidecar still decides a check whose caller gave up. A `traceparent` in ctx's outgoing metadata
// becomes the request's trace context.
func (s *CheckStream) Check(ctx context.Context, req *outriderv1.CheckActionRequest) (*outriderv1.CheckActionResponse, error) {
	if req.GetRequestId() == "" {
		req = proto.Clone(req).(*outriderv1.CheckActionRequest)
		req.RequestId = NewRequestID()
	}
	message := &outriderv1.CheckActionsRequest{Check: req, Traceparent: traceparent(ctx)}
	ch := make(chan checkResult, 1)

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrCheckStreamClosed
	}
	if s.conn == nil {
		conn, err := s.open()
		if err != nil {
			s.mu.Unlock()
			return nil, err
		}
		s.conn = conn
	}
	conn := s.conn
	s.nextID++
	message.Id = s.nextID
	conn.mu.Lock() // s.conn == conn, so conn has not ended (end clears s.conn first, under s.mu)
	conn.pending[message.Id] = ch
	conn.mu.Unlock()
	s.mu.Unlock()

	conn.sendMu.Lock()
	if conn.sentLast { // Close half-closed the stream after this check was taken in
		conn.sendMu.Unlock()
		conn.forget(message.Id)
		return nil, ErrCheckStreamClosed
	}
	err := conn.stream.Send(message)
	conn.sendMu.Unlock()
	if err != nil && err != io.EOF { // io.EOF: the stream ended; its reader reports why
		conn.forget(message.Id)
		return nil, err
	}
	select {
	case r := <-ch:
		return r.response, r.err
	case <-ctx.Done():
		conn.forget(message.Id)
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

func (c *checkConn) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func traceparent(ctx context.Context) string {
	md, _ := metadata.FromOutgoingContext(ctx)
	if v := md.Get("traceparent"); len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// Close half-closes the stream and waits until every pending check is answered and the stream has
// ended (cancel the CheckStream's context to stop waiting). It returns the error the stream ended with,
// if any. Check fails with ErrCheckStreamClosed afterwards.
func (s *CheckStream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return nil
	}
	conn.sendMu.Lock()
	conn.sentLast = true
	err := conn.stream.CloseSend()
	conn.sendMu.Unlock()
	if err != nil {
		conn.cancel()
	}
	<-conn.done
	conn.mu.Lock()
	defer conn.mu.Unlock()
	return conn.err
}
